/**
 * The field rules of `src/rules/` one by one: what each normalises, what it refuses and
 * why (the problem code the form turns into a message), that the gateway model is exactly
 * as strict as before they moved there (its patterns are the ones it had; it still refuses
 * the customer's raw text), and the companion end to end: a phone typed with separators is
 * paid with, an address the gateway cannot take is refused naming its field, before any
 * gateway request.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import {
  checkCardNumber,
  checkCvv,
  expiryProblem,
  type RuleResult,
} from '../../../src/rules/card.js';
import {
  EMAIL_PATTERN,
  PHONE_PATTERN,
  checkEmail,
  checkName,
  checkPhone,
} from '../../../src/rules/customer.js';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {CardNumber, Email, Phone} from '../../../src/server/gateway/primitives.js';
import {StubGateway, inProcessApp, pay, payBody} from '../checkout/helpers.js';

const value = <P extends string>(r: RuleResult<string, P>) => (r.ok ? r.value : `!${r.problem}`);

describe('normalising what customers type', () => {
  test('a card number loses its spaces and dashes, nothing else', () => {
    assert.equal(value(checkCardNumber(' 4242 4242-4242\u00a04242 ')), '4242424242424242');
    assert.equal(value(checkCardNumber('4242.4242.4242.4242')), '!characters');
    assert.equal(value(checkCardNumber('4242424242424241')), '!luhn');
    assert.equal(value(checkCardNumber('42424242424')), '!length');
    assert.equal(value(checkCardNumber('  ')), '!required');
  });

  test('a phone loses spaces, dots, dashes, slashes and parentheses; a letter is refused', () => {
    assert.equal(value(checkPhone('(050)1234567')), '0501234567');
    assert.equal(value(checkPhone('+380.50.123.4567')), '+380501234567');
    assert.equal(value(checkPhone('+380 (50) 123–45–67')), '+380501234567');
    assert.equal(value(checkPhone('050/123\u00a045\u00a067')), '0501234567');
    assert.equal(value(checkPhone('050 123 45 67 ext 2')), '!characters');
    assert.equal(value(checkPhone('380+501234567')), '!characters');
    assert.equal(value(checkPhone('12-34-5')), '!too-short');
    assert.equal(value(checkPhone('1'.repeat(32))), '!too-long');
    assert.equal(value(checkPhone('( )')), '!too-short');
    assert.equal(value(checkPhone(' ')), '!required');
  });

  test('an email address is trimmed; non-ASCII letters and a one-letter ending are refused', () => {
    assert.equal(value(checkEmail(' ada@example.com\n')), 'ada@example.com');
    assert.equal(value(checkEmail('оля@приклад.укр')), '!latin');
    assert.equal(value(checkEmail('ada@приклад.com')), '!latin');
    assert.equal(value(checkEmail('ada@example.c')), '!format');
    assert.equal(value(checkEmail('')), '!required');
  });

  test('a name is trimmed and counted in characters, an emoji being one', () => {
    assert.equal(value(checkName('  Ада ')), 'Ада');
    assert.equal(value(checkName('\u00a0')), '!required');
    assert.equal(value(checkName('😀'.repeat(256))), '😀'.repeat(256));
    assert.equal(value(checkName('😀'.repeat(257))), '!too-long');
    assert.equal(value(checkName('a'.repeat(129), 128)), '!too-long');
  });

  test('a security code is 3 or 4 digits, trimmed', () => {
    assert.equal(value(checkCvv(' 737 ')), '737');
    assert.equal(value(checkCvv('1234')), '1234');
    assert.equal(value(checkCvv('12 3')), '!invalid');
    assert.equal(value(checkCvv('١٢٣')), '!invalid');
  });

  test('an expiry is a real month of 2000–2099 that is not over in UTC−12', () => {
    const now = new Date(Date.UTC(2030, 6, 1, 11, 59));
    assert.equal(expiryProblem(6, 2030, now), undefined);
    assert.equal(expiryProblem(6, 2030, new Date(Date.UTC(2030, 6, 1, 12))), 'past');
    assert.equal(expiryProblem(13, 2031, now), 'month');
    assert.equal(expiryProblem(12, 2100, now), 'year');
    assert.equal(expiryProblem(12, 31, now), 'year');
  });
});

describe('the gateway model is as strict as before', () => {
  test('its email pattern is zod’s z.email() pattern, which it used until now', () => {
    assert.equal(EMAIL_PATTERN.source, z.regexes.email.source);
  });

  test('its phone pattern is the one it had', () => {
    assert.equal(PHONE_PATTERN.source, String.raw`^\+?[0-9][0-9 ()-]{5,30}$`);
  });

  test('it still refuses the raw text customers type: normalising is the sender’s job', () => {
    assert.equal(Phone.safeParse('(050)1234567').success, false);
    assert.equal(Phone.safeParse('+380.50.123.4567').success, false);
    assert.equal(Email.safeParse('оля@приклад.укр').success, false);
    assert.equal(Email.safeParse('ada@example.c').success, false);
    assert.equal(CardNumber.safeParse('4242 4242 4242 4242').success, false);
  });
});

describe('the companion applies the rules before calling the gateway', () => {
  test('a phone typed as (050)1234567 is paid with, and the gateway gets 0501234567', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    const body = payBody('rules-1', 'att-1');
    body.customer!.phone = '(050)1234567';
    const res = await pay(app, body);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(gw.created[0]!.customer_phone, '0501234567');
  });

  test('the merchant’s customer data from resolveOrder goes through the same rules', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      resolveOrder: () => ({
        amount: '1.50',
        currency: 'XTS',
        description: 'Order',
        customer: {
          firstName: ' Olena ',
          lastName: 'Koval',
          email: ' olena@example.com ',
          phone: '+380 (50) 123-45-67',
        },
      }),
    });
    const res = await pay(app, payBody('rules-m', 'att-m'));
    assert.equal(res.status, 200, await res.clone().text());
    const sent = gw.created[0]!;
    assert.equal(sent.customer_phone, '+380501234567');
    assert.equal(sent.customer_email, 'olena@example.com');
    assert.equal(sent.customer_fname, 'Olena');
  });

  for (const [email, message] of [
    ['оля@приклад.укр', /ASCII/],
    ['ada@example.c', /email address/],
  ] as const) {
    test(`${email} is a 400 naming customer.email, and no gateway request`, async () => {
      const gw = new StubGateway();
      const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
      const body = payBody('rules-2', 'att-2');
      body.customer!.email = email;
      const res = await pay(app, body);
      assert.equal(res.status, 400);
      const error = ((await res.json()) as {error: {field: string; message: string}}).error;
      assert.equal(error.field, 'customer.email');
      assert.match(error.message, message);
      assert.equal(gw.created.length, 0);
    });
  }
});
