// <pg-card-form>: structure, formatting and caret, paste, validation on blur and submit,
// keyboard-only use, accessibility in every state, locales, events and card-data hygiene,
// submitting and every outcome against a stubbed merchant endpoint, form association.
import {expect, fixture, html} from '@open-wc/testing';
import {sendKeys} from '@web/test-runner-commands';
import '../../src/index.js';
import {PgCardForm} from '../../src/card-form/card-form.js';
import {elementBaseTests} from './element-base-tests.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import {CHECKOUT_HEADER, PENDING_ORDER_KEY, type PayRequest} from '../../src/protocol/checkout.js';
import type {
  PgBrandChangeEvent,
  PgErrorEvent,
  PgFailureEvent,
  PgSuccessEvent,
  PgValidityChangeEvent,
} from '../../src/events/events.js';
import {
  ALL_EVENTS,
  CVV,
  VISA,
  allAttributeText,
  buttonOf,
  errorOf,
  fillCard,
  futureExpiry,
  inputOf,
  json,
  markOf,
  onBuiltInRedirect,
  once,
  press,
  recordEvents,
  statusOf,
  stubFetch,
  tick,
  typeInto,
  until,
} from './helpers.js';
import {ManualClock, settle} from './clock.js';
import {loadMessages} from '../../src/i18n/messages.js';

// Ukrainian loads on demand like every locale but English: have it at hand for the tests
// that read its texts at once.
before(() => loadMessages('uk'));

const form = () =>
  fixture<PgCardForm>(
    html`<pg-card-form endpoint="/checkout/pay" order-ref="order-42"></pg-card-form>`,
  );

const SUCCESS = {
  outcome: 'success',
  orderRef: 'order-42',
  code: '1000',
  message: 'Approved',
  cardMask: '424242******4242',
};

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
  sessionStorage.clear();
});

describe('pg-card-form structure', () => {
  it('puts number, expiry and CVV in one shadow root inside one form, with autofill names', async () => {
    const el = await form();
    const root = el.shadowRoot!;
    expect(root.querySelectorAll('form')).to.have.length(1);
    const f = root.querySelector('form')!;
    for (const [id, token] of [
      ['number', 'cc-number'],
      ['expiry', 'cc-exp'],
      ['cvv', 'cc-csc'],
    ]) {
      const input = inputOf(el, id!);
      expect(input.form).to.equal(f);
      expect(input.name).to.equal(token);
      // The attribute, which autofill reads: Firefox's `autocomplete` property reads '' for
      // cc-csc, a token it never fills.
      expect(input.getAttribute('autocomplete')).to.equal(token);
      expect(input.inputMode).to.equal('numeric');
      const label = root.querySelector(`label[for="${id}"]`)!;
      expect(label.textContent!.trim()).to.not.equal('');
      expect(input.getAttribute('aria-describedby')).to.equal(`${id}-error`);
      expect(root.getElementById(`${id}-error`)).to.not.equal(null);
    }
    expect(root.querySelector('[role="status"][aria-live="polite"]')).to.not.equal(null);
    expect(root.querySelector('#holder')).to.equal(null);
    // Accessible as first rendered: the shared suite (elementBaseTests, below).
  });

  it('adds the holder name (cc-name, no numeric keyboard) and customer fields on request', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form holder-name customer-name customer-email customer-phone></pg-card-form>`,
    );
    const holder = inputOf(el, 'holder');
    expect(holder.autocomplete).to.equal('cc-name');
    expect(holder.hasAttribute('inputmode')).to.equal(false);
    expect(inputOf(el, 'firstName').autocomplete).to.equal('given-name');
    expect(inputOf(el, 'lastName').autocomplete).to.equal('family-name');
    expect(inputOf(el, 'email').type).to.equal('email');
    expect(inputOf(el, 'phone').autocomplete).to.equal('tel');
    await expect(el).to.be.accessible();
  });
});

describe('pg-card-form formatting', () => {
  it('groups a Visa number 4-4-4-4 as it is typed, with the caret at the end', async () => {
    const el = await form();
    await typeInto(el, 'number', VISA);
    const input = inputOf(el, 'number');
    expect(input.value).to.equal('4242 4242 4242 4242');
    expect(input.selectionStart).to.equal(input.value.length);
    await el.updateComplete;
    expect(el.brand).to.equal('visa');
    expect((await markOf(el)).textContent!.trim()).to.equal('VISA');
  });

  it('groups Amex 4-6-5 and stops at 15 digits', async () => {
    const el = await form();
    await typeInto(el, 'number', '3782822463100059');
    expect(inputOf(el, 'number').value).to.equal('3782 822463 10005');
    await el.updateComplete;
    expect((await markOf(el)).getAttribute('data-brand')).to.equal('american-express');
  });

  it('groups Diners 14 as 4-6-4', async () => {
    const el = await form();
    await typeInto(el, 'number', '36227206271667');
    expect(inputOf(el, 'number').value).to.equal('3622 720627 1667');
  });

  it('keeps the caret after an inserted digit in the middle', async () => {
    const el = await form();
    await typeInto(el, 'number', '42424242');
    const input = inputOf(el, 'number');
    input.setSelectionRange(4, 4); // before the space
    await sendKeys({type: '1'});
    expect(input.value).to.equal('4242 1424 2');
    expect(input.selectionStart).to.equal(6);
  });

  it('deletes the digit before a group space on Backspace and keeps the caret there', async () => {
    const el = await form();
    await typeInto(el, 'number', '42424242');
    const input = inputOf(el, 'number');
    input.setSelectionRange(5, 5); // after the space
    await press('Backspace');
    expect(input.value).to.equal('4244 242');
    expect(input.selectionStart).to.equal(3);
  });

  it('normalises a pasted number with spaces and dashes', async () => {
    const el = await form();
    const input = inputOf(el, 'number');
    input.focus();
    document.execCommand('insertText', false, '4242 4242-4242 4242');
    expect(input.value).to.equal('4242 4242 4242 4242');
    input.value = '';
    input.value = ' 5555-5555-5555-4444 ';
    input.dispatchEvent(
      new InputEvent('input', {inputType: 'insertFromPaste', bubbles: true, composed: true}),
    );
    expect(input.value).to.equal('5555 5555 5555 4444');
    await el.updateComplete;
    expect(el.brand).to.equal('mastercard');
  });

  it('inserts the expiry slash, pads the month and lets Backspace remove the separator', async () => {
    const el = await form();
    const input = inputOf(el, 'expiry');
    await typeInto(el, 'expiry', '4');
    expect(input.value).to.equal('04 / ');
    input.value = '';
    await typeInto(el, 'expiry', '1/29');
    expect(input.value).to.equal('01 / 29');
    input.value = '';
    // `12` may still be 12 / … or card-validator's 1 / 2…: no separator until the next key.
    await typeInto(el, 'expiry', '12');
    expect(input.value).to.equal('12');
    await sendKeys({type: '/'});
    expect(input.value).to.equal('12 / ');
    await press('Backspace');
    expect(input.value).to.equal('12');
    await sendKeys({type: '29'});
    expect(input.value).to.equal('12 / 29');
    expect(input.selectionStart).to.equal(7);
  });

  it('shows a pasted impossible month as typed, stably, and Backspace still deletes', async () => {
    const el = await form();
    const input = inputOf(el, 'expiry');
    input.focus();
    document.execCommand('insertText', false, '40.');
    expect(input.value).to.equal('40 / ');
    input.dispatchEvent(new FocusEvent('focusout', {bubbles: true, composed: true}));
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal('Month: 01–12.');
    await press('Backspace');
    expect(input.value).to.equal('04');
    expect(input.selectionStart).to.equal(2);
    await press('Backspace');
    expect(input.value).to.equal('0');
    await press('Backspace');
    expect(input.value).to.equal('');
  });

  it('keeps letters out of the CVV and cuts it to the brand length', async () => {
    const el = await form();
    await typeInto(el, 'number', VISA);
    await typeInto(el, 'cvv', 'a1b2c3d4');
    expect(inputOf(el, 'cvv').value).to.equal('123');
  });
});

describe('pg-card-form validation', () => {
  it('shows no error while a number could still become valid, and an error on blur', async () => {
    const el = await form();
    await typeInto(el, 'number', '4242');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.equal('');
    expect(inputOf(el, 'number').getAttribute('aria-invalid')).to.equal('false');
    await press('Tab');
    await el.updateComplete;
    // The brand is known: the message says which lengths its numbers have.
    expect(errorOf(el, 'number')).to.equal('Visa: 16, 18, or 19 digits.');
    expect(inputOf(el, 'number').getAttribute('aria-invalid')).to.equal('true');
    await expect(el).to.be.accessible();
  });

  it('flags a Luhn-invalid Amex number as soon as it is complete', async () => {
    const el = await form();
    await typeInto(el, 'number', '378282246310006');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.equal('This card number is not valid.');
  });

  it('rejects an expiry in the past month on blur', async () => {
    const el = await form();
    // The month before this one in UTC−12, the earliest time zone: over everywhere.
    const earliest = new Date(Date.now() - 12 * 3600_000);
    const last = new Date(Date.UTC(earliest.getUTCFullYear(), earliest.getUTCMonth() - 1, 1));
    const typed = `${String(last.getUTCMonth() + 1).padStart(2, '0')}${String(last.getUTCFullYear() % 100).padStart(2, '0')}`;
    await typeInto(el, 'expiry', typed);
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal('Card has expired.');
  });

  it('says an expired card has expired, in English and Ukrainian, and a year over 19 ahead is too far', async () => {
    // card-validator takes this year and the 19 after it; the gateway's bound (2099) is wider.
    const year = (ahead: number) =>
      String((new Date().getFullYear() + ahead) % 100).padStart(2, '0');
    const el = await form();
    await typeInto(el, 'expiry', `01${year(19)}`);
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal('');
    const far = await form();
    await typeInto(far, 'expiry', `01${year(21)}`);
    await far.updateComplete;
    expect(errorOf(far, 'expiry')).to.equal('Check the year.');
    const en = await form();
    await typeInto(en, 'expiry', '0120');
    await press('Tab');
    await en.updateComplete;
    expect(errorOf(en, 'expiry')).to.equal('Card has expired.');
    const expired = await fixture<PgCardForm>(html`<pg-card-form lang="uk"></pg-card-form>`);
    await typeInto(expired, 'expiry', '0120');
    await press('Tab');
    await expired.updateComplete;
    expect(errorOf(expired, 'expiry')).to.equal('Термін минув.');
  });

  it('does not shift the layout when an error appears', async () => {
    const el = await form();
    const before = el.getBoundingClientRect().height;
    await typeInto(el, 'number', '4242');
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.not.equal('');
    expect(el.getBoundingClientRect().height).to.equal(before);
  });

  it('focuses the first invalid field on a failed submit and announces it, without sending', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await form();
    await typeInto(el, 'number', VISA);
    buttonOf(el).click();
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement).to.equal(inputOf(el, 'expiry'));
    expect(errorOf(el, 'expiry')).to.equal('Enter the date.');
    expect(errorOf(el, 'cvv')).to.equal('Enter the code.');
    expect(statusOf(el)).to.equal('Please correct 2 fields.');
    expect(stub.calls).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('asks American Express for its 4-digit code: 3 digits are refused, saying so', async () => {
    const el = await form();
    await fillCard(el, '378282246310005', '123');
    expect(inputOf(el, 'cvv').placeholder).to.equal('4 digits');
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'cvv')).to.equal('Enter 4 digits.');
    expect(inputOf(el, 'cvv').getAttribute('aria-invalid')).to.equal('true');
    expect(el.valid).to.equal(false);
    await typeInto(el, 'cvv', '4');
    await el.updateComplete;
    expect(errorOf(el, 'cvv')).to.equal('');
    expect(el.valid).to.equal(true);
    expect(inputOf(el, 'cvv').value).to.equal('1234');
    await typeInto(el, 'cvv', '5');
    expect(inputOf(el, 'cvv').value, 'no fifth digit').to.equal('1234');
  });

  it('validates customer email and phone', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form customer-email customer-phone></pg-card-form>`,
    );
    await typeInto(el, 'email', 'nope');
    await typeInto(el, 'phone', '12');
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'email')).to.equal('Enter a valid email address.');
    expect(errorOf(el, 'phone')).to.equal('This phone number is too short.');
  });
});

describe('pg-card-form keyboard and locale', () => {
  it('can be completed and submitted with the keyboard only', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await form();
    el.focus(); // delegatesFocus: lands in the number field
    expect(el.shadowRoot!.activeElement).to.equal(inputOf(el, 'number'));
    await sendKeys({type: VISA});
    await press('Tab');
    await sendKeys({type: futureExpiry().typed});
    await press('Tab');
    await sendKeys({type: CVV});
    await press('Enter');
    await until(() => el.state === 'success', 'success');
    expect(stub.calls).to.have.length(1);
  });

  it('speaks Ukrainian from its lang attribute, the document language, and switches live', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="uk"></pg-card-form>`);
    const label = () => el.shadowRoot!.querySelector('label[for="number"]')!.textContent!.trim();
    expect(label()).to.equal('Номер картки');
    el.setAttribute('lang', 'en');
    await tick();
    await el.updateComplete;
    expect(label()).to.equal('Card number');
    el.removeAttribute('lang');
    const original = document.documentElement.lang;
    document.documentElement.lang = 'uk-UA';
    await tick();
    await el.updateComplete;
    expect(label()).to.equal('Номер картки');
    document.documentElement.lang = original;
    await tick();
    await el.updateComplete;
    expect(label()).to.equal('Card number');
    await expect(el).to.be.accessible();
  });

  it('lets every message be overridden', async () => {
    const el = await form();
    el.messages = {pay: 'Pay 100 UAH', cardNumber: 'Card'};
    await el.updateComplete;
    expect(buttonOf(el).textContent!.trim()).to.equal('Pay 100 UAH');
    expect(el.shadowRoot!.querySelector('label[for="number"]')!.textContent!.trim()).to.equal(
      'Card',
    );
  });
});

describe('pg-card-form events and card data', () => {
  // That setting its properties emits nothing: the shared suite (elementBaseTests, below).
  it('emits brand and validity changes from typing', async () => {
    const el = await form();
    const rec = recordEvents(ALL_EVENTS);
    await fillCard(el);
    rec.stop();
    const brands = rec.events.filter((e) => e.type === 'pg-brand-change') as PgBrandChangeEvent[];
    expect(brands.map((e) => e.detail.brand)).to.deep.equal(['visa']);
    const validity = rec.events.filter(
      (e) => e.type === 'pg-validity-change',
    ) as PgValidityChangeEvent[];
    expect(validity.at(-1)!.detail).to.deep.equal({valid: true, invalidFields: []});
    for (const e of rec.events) {
      expect(e.bubbles && e.composed, e.type).to.equal(true);
    }
  });

  it('never puts card data in events, attributes, storage or the URL', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await form();
    const rec = recordEvents(ALL_EVENTS);
    await fillCard(el);
    const secrets = [VISA, '4242 4242', CVV];
    const haystack = () =>
      [
        allAttributeText(el),
        JSON.stringify({...sessionStorage}),
        JSON.stringify({...localStorage}),
        location.href,
        document.cookie,
      ].join('\n');
    for (const s of secrets) expect(haystack()).to.not.include(s);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    rec.stop();
    expect(rec.events.map((e) => e.type)).to.include.members(['pg-submit', 'pg-success']);
    const details = JSON.stringify(rec.events.map((e) => (e as CustomEvent).detail));
    // As a value of its own: a 3-digit code also turns up inside random hex ids.
    const asValue = (v: string) => new RegExp(`(?<![0-9A-Za-z])${v}(?![0-9A-Za-z])`);
    for (const s of [...secrets, '424242424242']) {
      expect(details).to.not.match(asValue(s));
      expect(haystack()).to.not.match(asValue(s));
    }
    expect(inputOf(el, 'number').value).to.equal('');
  });

  it('cancels sending when pg-submit is prevented', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await form();
    el.addEventListener('pg-submit', (e) => e.preventDefault());
    await fillCard(el);
    const submitted = once(el, 'pg-submit');
    buttonOf(el).click();
    await submitted;
    await settle();
    expect(stub.calls).to.have.length(0);
  });
});

describe('pg-card-form submit', () => {
  it('posts a PayRequest as JSON with the checkout header and the fingerprint', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await fixture<PgCardForm>(
      html`<pg-card-form
        endpoint="/checkout/pay"
        order-ref="order-42"
        holder-name
        customer-email
      ></pg-card-form>`,
    );
    await fillCard(el);
    await typeInto(el, 'holder', 'Ada Lovelace');
    await typeInto(el, 'email', 'ada@example.com');
    buttonOf(el).click();
    await until(() => stub!.calls.length === 1);
    const [call] = stub.calls;
    expect(call!.url).to.equal('/checkout/pay');
    expect(call!.method).to.equal('POST');
    expect(call!.headers.get(CHECKOUT_HEADER)).to.equal('1');
    expect(call!.headers.get('Content-Type')).to.equal('application/json');
    // A W3C traceparent of its own (src/internal/trace-context.ts).
    expect(call!.headers.get('traceparent')).to.match(
      /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$/,
    );
    const body = call!.body as PayRequest;
    expect(body.orderRef).to.equal('order-42');
    expect(body.attemptId).to.match(/^[0-9a-f]{32}$/);
    expect(body.card).to.deep.equal({
      number: VISA,
      expMonth: futureExpiry().month,
      expYear: futureExpiry().year,
      cvv: CVV,
      holder: 'Ada Lovelace',
    });
    expect(body.customer).to.deep.equal({email: 'ada@example.com'});
    expect(body.fingerprint.browserTimeZoneOffset).to.equal(String(new Date().getTimezoneOffset()));
  });

  it('sends once on a double click and shows progress until the answer', async () => {
    let answer!: (r: Response) => void;
    stub = stubFetch(() => new Promise<Response>((r) => (answer = r)));
    const el = await form();
    await fillCard(el);
    const button = buttonOf(el);
    button.click();
    button.click();
    el.shadowRoot!.querySelector('form')!.requestSubmit();
    await el.updateComplete;
    expect(button.disabled).to.equal(true);
    expect(button.textContent!.trim()).to.equal('Processing…');
    await expect(el).to.be.accessible();
    await settle();
    expect(stub.calls).to.have.length(1);
    const succeeded = once(el, 'pg-success');
    answer(json(SUCCESS));
    await succeeded;
    expect(stub.calls).to.have.length(1);
  });

  it('on success emits pg-success, clears the card and locks the form', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const el = await form();
    const got = new Promise<PgSuccessEvent>((r) =>
      el.addEventListener('pg-success', r, {once: true}),
    );
    await fillCard(el);
    buttonOf(el).click();
    const event = await got;
    await el.updateComplete;
    expect(event.detail).to.deep.equal({
      orderRef: 'order-42',
      code: '1000',
      message: 'Approved',
      cardMask: '424242******4242',
    });
    for (const f of ['number', 'expiry', 'cvv']) expect(inputOf(el, f).value).to.equal('');
    expect(statusOf(el), 'the browser’s text, not the server’s').to.equal('Payment successful.');
    expect(buttonOf(el).textContent!.trim()).to.equal('Paid');
    expect(el.shadowRoot!.querySelector('fieldset')!.disabled).to.equal(true);
    await expect(el).to.be.accessible();
  });

  it('on failure emits the code and message, clears the CVV and allows a new attempt', async () => {
    stub = stubFetch(() =>
      json({
        outcome: 'failure',
        orderRef: 'order-42',
        code: '2001',
        reason: 'insufficient_funds',
        message: 'Insufficient funds',
      }),
    );
    const el = await form();
    const got = new Promise<PgFailureEvent>((r) =>
      el.addEventListener('pg-failure', r, {once: true}),
    );
    await fillCard(el);
    buttonOf(el).click();
    const event = await got;
    await el.updateComplete;
    expect(event.detail).to.deep.equal({
      orderRef: 'order-42',
      code: '2001',
      message: 'Insufficient funds',
    });
    expect(statusOf(el)).to.equal('Payment declined: not enough money on the card.');
    expect(inputOf(el, 'cvv').value).to.equal('');
    expect(inputOf(el, 'number').value).to.equal('4242 4242 4242 4242');
    expect(buttonOf(el).disabled).to.equal(false);
    await expect(el).to.be.accessible();
    await typeInto(el, 'cvv', CVV);
    buttonOf(el).click();
    await until(() => stub!.calls.length === 2);
    const ids = stub.calls.map((c) => (c.body as PayRequest).attemptId);
    expect(ids[0]).to.not.equal(ids[1]);
  });

  it('on a network error offers a retry that resends the same attempt', async () => {
    stub = stubFetch((_r, i) =>
      i === 0 ? Promise.reject(new TypeError('Failed to fetch')) : json(SUCCESS),
    );
    const el = await form();
    const got = new Promise<PgErrorEvent>((r) => el.addEventListener('pg-error', r, {once: true}));
    await fillCard(el);
    buttonOf(el).click();
    const event = await got;
    await el.updateComplete;
    expect(event.detail.code).to.equal('network');
    expect(event.detail.retryable).to.equal(true);
    expect(statusOf(el)).to.include('Could not reach the server');
    expect(buttonOf(el).textContent!.trim()).to.equal('Try again');
    await expect(el).to.be.accessible();
    expect(inputOf(el, 'cvv').value, 'kept for the retry').to.equal(CVV);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    const ids = stub.calls.map((c) => (c.body as PayRequest).attemptId);
    expect(ids).to.have.length(2);
    expect(ids[0]).to.equal(ids[1]);
  });

  it('reports a server error body (non-2xx) with its code', async () => {
    stub = stubFetch(() =>
      json({error: {code: 'gateway_unavailable', message: 'Gateway down'}}, 503),
    );
    const el = await form();
    const got = new Promise<PgErrorEvent>((r) => el.addEventListener('pg-error', r, {once: true}));
    await fillCard(el);
    buttonOf(el).click();
    const event = await got;
    expect(event.detail).to.deep.include({
      code: 'gateway_unavailable',
      status: 503,
      retryable: true,
    });
    await el.updateComplete;
    expect(statusOf(el)).to.equal(
      'The payment service is not available. Nothing was charged; try again.',
    );
  });

  it('store_unavailable (the merchant database is down): said as nothing charged, the same attempt sent again', async () => {
    stub = stubFetch((_r, i) =>
      i === 0
        ? json({error: {code: 'store_unavailable', message: 'database down', retryAfter: 5}}, 503)
        : json(SUCCESS),
    );
    const el = await form();
    const got = new Promise<PgErrorEvent>((r) => el.addEventListener('pg-error', r, {once: true}));
    await fillCard(el);
    buttonOf(el).click();
    expect((await got).detail).to.deep.include({
      code: 'store_unavailable',
      status: 503,
      retryable: true,
    });
    await el.updateComplete;
    expect(statusOf(el)).to.equal(
      'The payment service is not available. Nothing was charged; try again.',
    );
    buttonOf(el).click();
    await until(() => el.state === 'success');
    const ids = stub.calls.map((c) => (c.body as PayRequest).attemptId);
    expect(ids).to.have.length(2);
    expect(ids[0], 'nothing reached the gateway: the same attempt').to.equal(ids[1]);
  });

  it('starts a new attempt after a request the server rejected as invalid', async () => {
    stub = stubFetch((_r, i) =>
      i === 0
        ? json({error: {code: 'invalid_request', message: 'Bad card', field: 'card.number'}}, 400)
        : json(SUCCESS),
    );
    const el = await form();
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'error');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.equal('This card number is not valid.');
    expect(statusOf(el), 'never the server’s sentence').to.equal(
      'Check the card details and try again.',
    );
    await typeInto(el, 'cvv', CVV);
    buttonOf(el).click();
    await until(() => stub!.calls.length === 2);
    const ids = stub.calls.map((c) => (c.body as PayRequest).attemptId);
    expect(ids[0]).to.not.equal(ids[1]);
  });

  it('hands 3ds_required to its own <pg-3ds-redirect>, keeping only the order reference', async () => {
    stub = stubFetch(() =>
      json({
        outcome: '3ds_required',
        orderRef: 'order-42',
        userActionUrl: 'https://acs.example/challenge?id=1',
      }),
    );
    const el = await form();
    expect(el.shadowRoot!.querySelector('pg-3ds-redirect')).to.equal(null);
    const visited: string[] = [];
    let redirect: PgThreeDSRedirect | undefined;
    onBuiltInRedirect(el, (r) => {
      redirect = r;
      r.navigate = (url) => visited.push(url);
    });
    const required = new Promise<Event>((r) =>
      el.addEventListener('pg-3ds-required', r, {once: true}),
    );
    await fillCard(el);
    buttonOf(el).click();
    await required;
    await until(() => visited.length === 1);
    expect(visited[0]).to.equal('https://acs.example/challenge?id=1');
    expect(sessionStorage.getItem(PENDING_ORDER_KEY)).to.equal('order-42');
    expect(sessionStorage.length).to.equal(1);
    expect(inputOf(el, 'number').value).to.equal('');
    expect(redirect!.statusEndpoint).to.equal('/checkout/status');
  });

  it('a cancelled challenge tells the server the attempt was abandoned, then offers paying again', async () => {
    let abandoned: (() => void) | undefined;
    stub = stubFetch((r) => {
      if (r.url.endsWith('/pay')) {
        return json({
          outcome: '3ds_required',
          orderRef: 'order-42',
          userActionUrl: 'https://acs.example/challenge?id=2',
        });
      }
      if (r.url.endsWith('/abandon')) {
        // The status check must wait for this answer.
        return new Promise<Response>((resolve) => {
          abandoned = () =>
            resolve(json({orderRef: 'order-42', state: 'failure', final: true, code: 'abandoned'}));
        });
      }
      return json({
        orderRef: 'order-42',
        state: 'failure',
        final: true,
        code: 'abandoned',
        message: 'The payment was cancelled. You can try again.',
      });
    });
    const el = await fixture<PgCardForm>(
      html`<pg-card-form
        endpoint="/checkout/pay"
        order-ref="order-42"
        three-ds-mode="iframe"
      ></pg-card-form>`,
    );
    let redirect: PgThreeDSRedirect | undefined;
    onBuiltInRedirect(el, (r) => (redirect = r));
    const cancelled = new Promise<Event>((r) =>
      el.addEventListener('pg-3ds-cancel', r, {once: true}),
    );
    await fillCard(el);
    buttonOf(el).click();
    await until(() => !!redirect?.shadowRoot?.querySelector('dialog[open]'), 'the modal');
    const payId = (stub.calls[0]!.body as {attemptId: string}).attemptId;
    redirect!.shadowRoot!.querySelector<HTMLButtonElement>('[part="cancel"]')!.click();
    await cancelled;
    await until(() => stub!.calls.length === 2, 'the abandon request');
    const abandon = stub.calls[1]!;
    expect(abandon.method).to.equal('POST');
    expect(abandon.url).to.equal('/checkout/abandon');
    expect(abandon.headers.get('content-type')).to.equal('application/json');
    expect(abandon.body).to.deep.equal({orderRef: 'order-42', attemptId: payId});
    await settle();
    expect(stub.calls.length, 'no status check before the server answered').to.equal(2);
    abandoned!();
    await until(() => stub!.calls.length === 3, 'the status check');
    await until(() => statusOf(el).includes('Payment cancelled'), 'the cancelled text');
    expect(stub.calls[2]!.url).to.match(/\/checkout\/status\?order=order-42$/);
    // The form is ready for another card at once.
    expect(buttonOf(el).disabled).to.equal(false);
    expect(inputOf(el, 'number').readOnly).to.equal(false);
  });

  it('uses a merchant-provided <pg-3ds-redirect> child when there is one', async () => {
    stub = stubFetch(() =>
      json({outcome: '3ds_required', orderRef: 'order-42', userActionUrl: 'https://acs.example/x'}),
    );
    const el = await fixture<PgCardForm>(
      html`<pg-card-form endpoint="/checkout/pay" order-ref="order-42">
        <pg-3ds-redirect status-endpoint="/custom/status"></pg-3ds-redirect>
      </pg-card-form>`,
    );
    const own = el.querySelector('pg-3ds-redirect')!;
    const visited: string[] = [];
    own.navigate = (url) => visited.push(url);
    onBuiltInRedirect(el, (inner) => (inner.navigate = () => visited.push('inner')));
    await fillCard(el);
    buttonOf(el).click();
    await until(() => visited.length === 1);
    await settle();
    expect(visited).to.deep.equal(['https://acs.example/x']);
    expect(el.shadowRoot!.querySelector('pg-3ds-redirect')).to.equal(null);
  });

  it('follows processing by polling the status route until the outcome is final', async () => {
    stub = stubFetch((r, i) => {
      if (r.method === 'POST')
        return json({outcome: 'processing', orderRef: 'order-42', message: 'Wait'});
      return json(
        i < 2
          ? {orderRef: 'order-42', state: 'processing', final: false}
          : {
              orderRef: 'order-42',
              state: 'success',
              final: true,
              code: '1000',
              message: 'Approved',
            },
      );
    });
    const el = await form();
    const clock = new ManualClock();
    onBuiltInRedirect(el, (redirect) => {
      redirect.pollInterval = 20;
      redirect.clock = clock;
    });
    let event: PgSuccessEvent | undefined;
    void once<PgSuccessEvent>(el, 'pg-success').then((e) => (event = e));
    await fillCard(el);
    buttonOf(el).click();
    await clock.runUntil(() => event !== undefined, 'pg-success');
    expect(clock.now(), 'one wait between the two status requests').to.equal(20);
    expect(event!.detail.orderRef).to.equal('order-42');
    const statusCalls = stub.calls.filter((c) => c.method === 'GET');
    expect(statusCalls.length).to.be.greaterThan(1);
    expect(statusCalls[0]!.url).to.include('/checkout/status?order=order-42');
    await el.updateComplete;
    expect(el.state).to.equal('success');
    expect(statusOf(el)).to.include('Payment successful.');
  });
});

describe('pg-card-form in a merchant form', () => {
  it('submits the order reference, never the card number', async () => {
    const outer = await fixture<HTMLFormElement>(
      html`<form>
        <input name="note" value="hi" />
        <pg-card-form name="order" order-ref="order-42"></pg-card-form>
      </form>`,
    );
    const el = outer.querySelector('pg-card-form')!;
    await el.updateComplete;
    await fillCard(el);
    const data = new FormData(outer);
    expect(data.get('order')).to.equal('order-42');
    const all = [...data.values()].join('|');
    expect(all).to.not.include('4242');
    expect(all).to.not.include(CVV);
    expect(el.form).to.equal(outer);
  });

  it('with required, blocks the merchant form until the card is valid', async () => {
    const outer = await fixture<HTMLFormElement>(
      html`<form><pg-card-form required></pg-card-form></form>`,
    );
    const el = outer.querySelector('pg-card-form')!;
    await el.updateComplete;
    expect(outer.checkValidity()).to.equal(false);
    await fillCard(el);
    expect(outer.checkValidity()).to.equal(true);
  });

  it('clears the card when removed from the page', async () => {
    const el = await form();
    await fillCard(el);
    const input = inputOf(el, 'number');
    el.remove();
    expect(input.value).to.equal('');
    expect(inputOf(el, 'cvv').value).to.equal('');
  });
});

describe('pg-card-form in a merchant’s disabled fieldset', () => {
  it('is disabled with it (fields and Pay), and pays again once enabled', async () => {
    stub = stubFetch(() => json(SUCCESS));
    const outer = await fixture<HTMLFormElement>(
      html`<form>
        <fieldset>
          <pg-card-form endpoint="/checkout/pay" order-ref="order-42"></pg-card-form>
        </fieldset>
      </form>`,
    );
    const el = outer.querySelector('pg-card-form')!;
    const inner = () => el.shadowRoot!.querySelector('fieldset')!;
    await el.updateComplete;
    await fillCard(el);
    const fieldset = outer.querySelector('fieldset')!;
    fieldset.disabled = true;
    await el.updateComplete;
    expect(inner().disabled, 'disabled by the merchant’s fieldset').to.equal(true);
    await el.submit();
    await settle();
    expect(stub.calls, 'nothing sent while disabled').to.have.length(0);
    fieldset.disabled = false;
    await el.updateComplete;
    expect(inner().disabled).to.equal(false);
    await el.submit();
    expect(stub.calls).to.have.length(1);
    expect(el.state).to.equal('success');
  });
});

describe('pg-card-form: setting a property never dispatches', () => {
  // Each declared property (its attribute or not) to a value other than its default.
  const VALUES: Record<string, unknown> = {
    endpoint: '/other/pay',
    statusEndpoint: '/other/status',
    orderRef: 'order-43',
    threeDSMode: 'iframe',
    challengeWindowSize: '02',
    holderName: true,
    customerName: true,
    customerEmail: true,
    customerPhone: true,
    required: true,
    disabled: true,
    acceptedBrands: 'mastercard',
    acceptHeader: 'text/html',
    amount: '12.50',
    currency: 'UAH',
    orderDetails: true,
    offerSaveCard: true,
    theme: 'dark',
    messages: {pay: 'Pay now'},
  };

  it('covers every declared property', () => {
    const declared = Object.entries(
      (PgCardForm as unknown as {properties: Record<string, {state?: boolean}>}).properties,
    )
      .filter(([, options]) => !options.state)
      .map(([name]) => name);
    expect(Object.keys(VALUES).sort()).to.deep.equal(declared.sort());
  });

  it('even when it changes the fields shown and their validity, after a payment failed', async () => {
    // The order route (order-details, offer-save-card) never answers: nothing async to tell.
    stub = stubFetch((request) =>
      request.url.endsWith('/pay')
        ? json({outcome: 'error', code: 'network', message: ''}, 503)
        : new Promise<Response>(() => undefined),
    );
    const el = await form();
    await fillCard(el);
    const failed = once(el, 'pg-error');
    buttonOf(el).click();
    await failed;
    await el.updateComplete;
    expect(el.valid, 'a valid Visa typed').to.equal(true);
    const rec = recordEvents(ALL_EVENTS);
    try {
      for (const [name, value] of Object.entries(VALUES)) {
        (el as unknown as Record<string, unknown>)[name] = value;
        await el.updateComplete;
      }
      await tick();
    } finally {
      rec.stop();
    }
    expect(el.valid, 'Visa refused, empty fields asked for').to.equal(false);
    expect(rec.events.map((e) => e.type)).to.deep.equal([]);
  });
});

elementBaseTests<PgCardForm>({
  tag: 'pg-card-form',
  element: PgCardForm,
  create: form,
  properties: {orderRef: 'other', messages: {pay: 'x'}, holderName: true, lang: 'uk'},
  reflected: {theme: {attribute: 'theme', values: ['dark', 'light']}},
});
