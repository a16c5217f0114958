// <pg-card-form>: every state has a way forward. A cancelled 3-D Secure challenge frees the
// form at once and another card never meets the old challenge; a status check that runs
// out of time offers "Check again"; an unknown outcome and a network or server error offer
// "Try again", which pays again with the card data still in the inputs (the
// security code included); an unreachable server or gateway is said at once; the server's
// reason codes are said in the customer's language, never in the server's words.
import {expect, fixture, html} from '@open-wc/testing';
import {sendKeys} from '@web/test-runner-commands';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import type {PayRequest} from '../../src/protocol/checkout.js';
import {en} from '../../src/i18n/messages.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {
  CVV,
  VISA,
  buttonOf,
  fillCard,
  inputOf,
  json,
  onBuiltInRedirect,
  statusOf,
  stubFetch,
  until,
} from './helpers.js';
import {ManualClock, settle} from './clock.js';
import {loadMessages} from '../../src/i18n/messages.js';

// Ukrainian loads on demand like every locale but English: have it at hand for the tests
// that read its texts at once.
before(() => loadMessages('uk'));

const SUCCESS = {outcome: 'success', orderRef: 'order-7', code: '1000', message: 'Approved'};
const NOT_CONFIRMED = {
  outcome: 'failure',
  orderRef: 'order-7',
  code: 'not_confirmed',
  reason: 'not_confirmed',
  message: 'The bank did not confirm the payment in time.',
};

const form = (lang = 'en', mode = 'redirect') =>
  fixture<PgCardForm>(
    html`<pg-card-form
      lang=${lang}
      endpoint="/checkout/pay"
      order-ref="order-7"
      three-ds-mode=${mode}
    ></pg-card-form>`,
  );

const pays = (s: ReturnType<typeof stubFetch>) =>
  s.calls.filter((c) => c.url.endsWith('/pay')).map((c) => c.body as PayRequest);
const checkButton = (el: PgCardForm) =>
  el.shadowRoot!.querySelector<HTMLButtonElement>('[part="check"]');

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
  sessionStorage.clear();
});

describe('pg-card-form: a cancelled 3-D Secure challenge', () => {
  it('frees the form at once, and another card waits for the abandon instead of reopening the old challenge', async () => {
    let abandonedAt = -1;
    let answerAbandon: (() => void) | undefined;
    stub = stubFetch((r, i) => {
      if (r.url.endsWith('/abandon')) {
        return new Promise<Response>((resolve) => {
          answerAbandon = () => {
            abandonedAt = i;
            resolve(
              json({orderRef: 'order-7', state: 'failure', final: true, reason: 'abandoned'}),
            );
          };
        });
      }
      if (r.url.endsWith('/pay')) {
        // The server answers the old challenge while it is open (not yet abandoned).
        const open = abandonedAt < 0;
        return json({
          outcome: '3ds_required',
          orderRef: 'order-7',
          userActionUrl: `https://acs.example/challenge?id=${open && i > 0 ? 'old' : i}`,
        });
      }
      return json({orderRef: 'order-7', state: 'failure', final: true, reason: 'abandoned'});
    });
    const el = await form('en', 'iframe');
    let redirect: PgThreeDSRedirect | undefined;
    onBuiltInRedirect(el, (r) => (redirect = r));
    await fillCard(el);
    buttonOf(el).click();
    const frame = () =>
      redirect?.shadowRoot?.querySelector<HTMLIFrameElement>('dialog[open] iframe')?.src ?? '';
    await until(() => frame() !== '', 'the modal');
    const first = frame();
    redirect!.shadowRoot!.querySelector<HTMLButtonElement>('[part="cancel"]')!.click();
    await el.updateComplete;
    // At once: before the server has answered the abandon request.
    expect(answerAbandon, 'the abandon request is in flight').to.be.a('function');
    expect(statusOf(el)).to.equal(en.threeDSCancelled);
    expect(buttonOf(el).disabled).to.equal(false);
    expect(el.state).to.equal('failure');
    await expect(el).to.be.accessible();

    await fillCard(el, '5454545454545454');
    buttonOf(el).click();
    await settle();
    expect(pays(stub), 'no new payment before the server wrote the old one off').to.have.length(1);
    answerAbandon!();
    await until(() => pays(stub!).length === 2, 'the second payment');
    expect(pays(stub)[1]!.card!.number).to.equal('5454545454545454');
    await until(() => frame() !== '', 'the new modal');
    expect(frame()).to.not.equal(first);
    expect(frame()).to.not.include('id=old');
  });

  it('Escape frees the form at once too', async () => {
    stub = stubFetch((r) =>
      r.url.endsWith('/pay')
        ? json({
            outcome: '3ds_required',
            orderRef: 'order-7',
            userActionUrl: 'https://acs.example/e',
          })
        : new Promise<Response>(() => {}),
    );
    const el = await form('uk', 'iframe');
    let redirect: PgThreeDSRedirect | undefined;
    onBuiltInRedirect(el, (r) => (redirect = r));
    await fillCard(el);
    buttonOf(el).click();
    await until(() => !!redirect?.shadowRoot?.querySelector('dialog[open]'), 'the modal');
    await sendKeys({press: 'Escape'});
    await until(() => !redirect!.shadowRoot!.querySelector('dialog[open]'), 'closed');
    await el.updateComplete;
    expect(statusOf(el)).to.equal(uk.threeDSCancelled);
    expect(buttonOf(el).disabled).to.equal(false);
  });
});

describe('pg-card-form: a payment still processing', () => {
  it('offers "Check again" when the status check runs out of time, says what is known, and checks again', async () => {
    let final = false;
    stub = stubFetch((r) => {
      if (r.method === 'POST')
        return json({outcome: 'processing', orderRef: 'order-7', message: 'Wait'});
      return json(
        final
          ? {orderRef: 'order-7', state: 'success', final: true, code: '1000'}
          : {orderRef: 'order-7', state: 'processing', final: false},
      );
    });
    const el = await form();
    const clock = new ManualClock();
    onBuiltInRedirect(el, (redirect) => {
      redirect.clock = clock;
      redirect.timeout = 60_000;
    });
    await fillCard(el);
    buttonOf(el).click();
    await clock.runUntil(() => !!checkButton(el), 'the Check again button');
    expect(clock.now()).to.be.at.least(60_000);
    expect(el.state).to.equal('processing');
    expect(statusOf(el)).to.include(en.stillProcessing);
    expect(checkButton(el)!.textContent!.trim()).to.equal(en.checkAgain);
    await expect(el).to.be.accessible();

    final = true;
    const polls = stub.calls.length;
    checkButton(el)!.click();
    await clock.runUntil(() => el.state === 'success', 'the success');
    expect(stub.calls.length).to.be.greaterThan(polls);
    expect(stub.calls.at(-1)!.url).to.include('/checkout/status?order=order-7');
    expect(pays(stub), 'checking never pays again').to.have.length(1);
    expect(checkButton(el)).to.equal(null);
  });
});

describe('pg-card-form: "Try again" is one click', () => {
  it('after an unknown outcome, pays again as a new attempt with the same card data, the code included', async () => {
    stub = stubFetch((_r, i) => json(i === 0 ? NOT_CONFIRMED : SUCCESS));
    const el = await form();
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'failure');
    await el.updateComplete;
    expect(statusOf(el)).to.equal(en.notConfirmed);
    expect(buttonOf(el).textContent!.trim()).to.equal(en.retry);
    expect(inputOf(el, 'cvv').value, 'held in its input for the retry').to.equal(CVV);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    const [first, second] = pays(stub);
    // A new attempt: the companion answers a known attempt id with the state it has, and
    // re-sends the create (same gateway order id) only for a new attempt of the order.
    expect(second!.attemptId).to.not.equal(first!.attemptId);
    expect(second!.card).to.deep.equal(first!.card);
    expect(second!.card!.cvv).to.equal(CVV);
    expect(inputOf(el, 'cvv').value, 'cleared after the final answer').to.equal('');
  });

  for (const [what, fail] of [
    ['a network error', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a 500', () => Promise.resolve(json({error: {code: 'internal', message: 'boom'}}, 500))],
  ] as const) {
    it(`after ${what}, resends the same attempt with the code still in its input`, async () => {
      stub = stubFetch((_r, i) => (i === 0 ? fail() : json(SUCCESS)));
      const el = await form();
      await fillCard(el);
      buttonOf(el).click();
      await until(() => el.state === 'error');
      await el.updateComplete;
      expect(inputOf(el, 'cvv').value).to.equal(CVV);
      expect(buttonOf(el).textContent!.trim()).to.equal(en.retry);
      buttonOf(el).click();
      await until(() => el.state === 'success');
      const [first, second] = pays(stub);
      expect(second!.attemptId).to.equal(first!.attemptId);
      expect(second!.card!.cvv).to.equal(CVV);
      expect(second!.card!.number).to.equal(VISA);
      expect(inputOf(el, 'cvv').value).to.equal('');
    });
  }
});

describe('pg-card-form: an unreachable server or gateway', () => {
  const answers = [
    [
      'a refused connection',
      () => Promise.reject(new TypeError('Failed to fetch')),
      en.networkError,
    ],
    [
      'gateway_unavailable (503)',
      () =>
        Promise.resolve(
          json({error: {code: 'gateway_unavailable', message: 'The gateway is down'}}, 503),
        ),
      en.gatewayUnavailable,
    ],
    [
      'a 502 without a body',
      () => Promise.resolve(new Response('Bad Gateway', {status: 502})),
      en.serverError,
    ],
  ] as const;
  it('a refused connection, a 502 and gateway_unavailable are each said at once, never as processing', async () => {
    for (const [what, answer, text] of answers) {
      stub?.restore();
      stub = stubFetch(answer);
      const el = await form();
      // At once: on the form's own clock, which nothing moves here.
      const clock = new ManualClock();
      el.clock = clock;
      await fillCard(el);
      buttonOf(el).click();
      for (let turn = 0; turn < 50 && el.state !== 'error'; turn++) await settle(1);
      expect(el.state, what).to.equal('error');
      expect(clock.now(), `${what}: said without waiting on the clock`).to.equal(0);
      await el.updateComplete;
      expect(statusOf(el), what).to.equal(text);
      expect(statusOf(el)).to.not.include(en.checking);
      await settle();
      expect(
        stub.calls.filter((c) => c.method === 'GET'),
        'no status polling',
      ).to.have.length(0);
      expect(el.shadowRoot!.querySelector('pg-3ds-redirect')).to.equal(null);
    }
  });

  it('rate limited: says how long to wait', async () => {
    stub = stubFetch(() =>
      json({error: {code: 'rate_limited', message: 'too many', retryAfter: 30}}, 429),
    );
    const el = await form('uk');
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'error');
    await el.updateComplete;
    expect(statusOf(el)).to.equal(uk.rateLimited.replace('{n}', '30'));
  });
});

describe('pg-card-form: reason codes in the customer language', () => {
  const cases = [
    ['insufficient_funds', 'declinedFunds'],
    ['wrong_cvv', 'declinedCvv'],
    ['expired_card', 'declinedExpired'],
    ['issuer_declined', 'declinedIssuer'],
    ['three_ds_failed', 'declinedThreeDS'],
    ['expired', 'paymentExpired'],
    ['not_created', 'notCreated'],
    ['not_confirmed', 'notConfirmed'],
    ['declined', 'failure'],
    ['a_reason_from_a_newer_server', 'failure'],
  ] as const;
  for (const lang of ['en', 'uk'] as const) {
    it(`${lang}: each reason is the browser's own text, never the server's`, async () => {
      const table = lang === 'en' ? en : uk;
      for (const [reason, key] of cases) {
        stub = stubFetch(() =>
          json({
            outcome: 'failure',
            orderRef: 'order-7',
            code: '5105',
            reason,
            message: 'Insufficient funds (server text)',
          }),
        );
        const el = await form(lang);
        await fillCard(el);
        buttonOf(el).click();
        await until(() => el.state === 'failure', reason);
        await el.updateComplete;
        const text = statusOf(el);
        expect(text, reason).to.equal(table[key]);
        expect(text).to.not.include('server text');
        if (lang === 'uk') expect(text, `${reason}: no English in uk`).to.not.match(/[A-Za-z]/);
        stub.restore();
      }
    });
  }

  it('uk: success and a refused request have no English either', async () => {
    stub = stubFetch(() => json({...SUCCESS, message: 'Transaction successful'}));
    const el = await form('uk');
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    await el.updateComplete;
    expect(statusOf(el)).to.equal(uk.success);
    stub.restore();
    stub = stubFetch(() =>
      json({error: {code: 'invalid_request', message: 'too many failed payment attempts'}}, 400),
    );
    const other = await form('uk');
    await fillCard(other);
    buttonOf(other).click();
    await until(() => other.state === 'error');
    await other.updateComplete;
    expect(statusOf(other)).to.not.match(/[A-Za-z]/);
  });
});
