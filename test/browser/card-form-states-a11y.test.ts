// <pg-card-form> in every state, in English and in Arabic on a right-to-left page: axe finds
// no violation, the state's text is the customer's language's (no Latin letter in Arabic),
// labels and the status line follow the page's direction, and the card number, expiry and
// security code stay left to right. The states: idle, field errors, paying, checking the
// status, the status check out of time ("Check again"), an unknown outcome ("Try again"),
// a refused connection, gateway_unavailable, the 3-D Secure modal open and cancelled, a
// decline with each reason code, success and rate limited. How each state is reached is
// tested in card-form-states.test.ts; here each is looked at.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import {PAY_FAILURE_REASONS} from '../../src/protocol/checkout.js';
import {en, fill, loadMessages, type CheckoutMessages} from '../../src/i18n/messages.js';
import {ar} from '../../src/i18n/locales/ar.js';
import {failureText} from '../../src/i18n/outcome-text.js';
import {
  buttonOf,
  errorOf,
  fillCard,
  inputOf,
  json,
  onBuiltInRedirect,
  statusOf,
  stubFetch,
  typeInto,
  until,
} from './helpers.js';
import {ManualClock} from './clock.js';

before(() => loadMessages('ar'));

const LANGUAGES: ReadonlyArray<{lang: string; dir: 'ltr' | 'rtl'; t: CheckoutMessages}> = [
  {lang: 'en', dir: 'ltr', t: en},
  {lang: 'ar', dir: 'rtl', t: ar},
];

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
  sessionStorage.clear();
});

const never = () => new Promise<Response>(() => {});

async function form(lang: string, dir: string, mode = 'redirect'): Promise<PgCardForm> {
  const page = await fixture<HTMLDivElement>(html`
    <div lang=${lang} dir=${dir} style="width: 360px">
      <pg-card-form endpoint="/checkout/pay" order-ref="order-9" three-ds-mode=${mode}>
      </pg-card-form>
    </div>
  `);
  const el = page.querySelector('pg-card-form')!;
  await el.updateComplete;
  return el;
}

/** Fills the card, presses Pay and waits until the form is in `state`. */
async function pay(el: PgCardForm, state: PgCardForm['state']): Promise<void> {
  await fillCard(el);
  buttonOf(el).click();
  await until(() => el.state === state, state);
  await el.updateComplete;
}

/**
 * What every state must hold: axe passes; the page's direction on labels and the status
 * line, left to right on the card's digits; in Arabic, no Latin letter in any text shown.
 */
async function expectReadable(el: PgCardForm, dir: string, where: string): Promise<void> {
  await el.updateComplete;
  const root = el.shadowRoot!;
  for (const name of ['number', 'expiry', 'cvv']) {
    expect(getComputedStyle(inputOf(el, name)).direction, `${where}: ${name}`).to.equal('ltr');
  }
  const label = root.querySelector('label[for="number"]')!;
  expect(getComputedStyle(label).direction, `${where}: label`).to.equal(dir);
  const status = root.querySelector('[part="status"]')!;
  expect(getComputedStyle(status).direction, `${where}: status`).to.equal(dir);
  if (dir === 'rtl') {
    // The expiry's format hint aside: `MM / YY`, as printed on the card and typed (ar.ts).
    const shown = [...root.querySelectorAll('label, .field__error, [part="status"], button')]
      .map((node) => {
        const copy = node.cloneNode(true) as Element;
        copy.querySelector('.field__hint')?.remove();
        return copy.textContent!.trim();
      })
      .join(' | ');
    expect(shown, `${where}: English in Arabic`).to.not.match(/[A-Za-z]/);
  }
  try {
    await expect(el).to.be.accessible();
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

for (const {lang, dir, t} of LANGUAGES) {
  describe(`pg-card-form states, accessible in ${lang} (${dir})`, () => {
    it('idle', async () => {
      const el = await form(lang, dir);
      expect(el.shadowRoot!.querySelector('label[for="number"]')!.textContent).to.equal(
        t.cardNumber,
      );
      await expectReadable(el, dir, 'idle');
    });

    it('field errors', async () => {
      const el = await form(lang, dir);
      // A number of no brand: a brand's own length message names it as its card prints it
      // (`Visa`), Latin letters in any language.
      await typeInto(el, 'number', '1234');
      await typeInto(el, 'expiry', '00');
      el.reportValidity();
      await el.updateComplete;
      expect(errorOf(el, 'number')).to.not.equal('');
      expect(errorOf(el, 'expiry')).to.equal(t.expiryMonth);
      expect(statusOf(el)).to.equal(fill(t.fixFields, 3, lang));
      await expectReadable(el, dir, 'field errors');
    });

    it('paying (the request in flight)', async () => {
      stub = stubFetch(never);
      const el = await form(lang, dir);
      await pay(el, 'pending');
      expect(statusOf(el)).to.equal(t.paying);
      expect(buttonOf(el).getAttribute('aria-busy')).to.equal('true');
      await expectReadable(el, dir, 'paying');
    });

    it('processing: checking the status, then "Check again" once the check ran out of time', async () => {
      stub = stubFetch((r) =>
        r.method === 'POST'
          ? json({outcome: 'processing', orderRef: 'order-9', message: 'Wait'})
          : json({orderRef: 'order-9', state: 'processing', final: false}),
      );
      const el = await form(lang, dir);
      const clock = new ManualClock();
      onBuiltInRedirect(el, (redirect) => {
        redirect.clock = clock;
        redirect.timeout = 60_000;
      });
      await pay(el, 'processing');
      expect(statusOf(el)).to.equal(t.checking);
      await expectReadable(el, dir, 'checking');
      const check = () => el.shadowRoot!.querySelector<HTMLButtonElement>('[part="check"]');
      await clock.runUntil(() => !!check(), 'the Check again button');
      await el.updateComplete;
      expect(statusOf(el)).to.include(t.stillProcessing);
      expect(check()!.textContent!.trim()).to.equal(t.checkAgain);
      await expectReadable(el, dir, 'check again');
    });

    it('an unknown outcome offers "Try again"', async () => {
      stub = stubFetch(() =>
        json({
          outcome: 'failure',
          orderRef: 'order-9',
          code: 'not_confirmed',
          reason: 'not_confirmed',
          message: 'The bank did not confirm the payment in time.',
        }),
      );
      const el = await form(lang, dir);
      await pay(el, 'failure');
      expect(statusOf(el)).to.equal(t.notConfirmed);
      expect(buttonOf(el).textContent!.trim()).to.equal(t.retry);
      await expectReadable(el, dir, 'unknown outcome');
    });

    it('a refused connection and gateway_unavailable', async () => {
      for (const [what, answer, text] of [
        ['refused', () => Promise.reject(new TypeError('Failed to fetch')), t.networkError],
        [
          'gateway_unavailable',
          () => Promise.resolve(json({error: {code: 'gateway_unavailable', message: 'x'}}, 503)),
          t.gatewayUnavailable,
        ],
      ] as const) {
        stub?.restore();
        stub = stubFetch(answer);
        const el = await form(lang, dir);
        await pay(el, 'error');
        expect(statusOf(el), what).to.equal(text);
        expect(buttonOf(el).textContent!.trim(), what).to.equal(t.retry);
        await expectReadable(el, dir, what);
      }
    });

    it('the 3-D Secure modal open, then cancelled', async () => {
      const acs = new URL('./fixtures/acs.html', import.meta.url).href;
      stub = stubFetch((r) =>
        r.url.endsWith('/pay')
          ? json({outcome: '3ds_required', orderRef: 'order-9', userActionUrl: acs})
          : r.url.endsWith('/abandon')
            ? json({orderRef: 'order-9', state: 'failure', final: true, reason: 'abandoned'})
            : never(),
      );
      const el = await form(lang, dir, 'iframe');
      let redirect: PgThreeDSRedirect | undefined;
      onBuiltInRedirect(el, (r) => (redirect = r));
      await pay(el, 'three-ds');
      const dialog = () => redirect?.shadowRoot?.querySelector('dialog[open]') ?? null;
      await until(() => dialog() !== null, 'the modal');
      await redirect!.updateComplete;
      expect(statusOf(el)).to.equal(t.threeDSTitle);
      const modal = redirect!.shadowRoot!;
      expect(modal.querySelector('[part="cancel"]')!.textContent!.trim()).to.equal(t.cancel);
      expect(getComputedStyle(modal.querySelector('[part="cancel"]')!).direction).to.equal(dir);
      await expectReadable(el, dir, '3-D Secure modal');

      modal.querySelector<HTMLButtonElement>('[part="cancel"]')!.click();
      await until(() => el.state === 'failure', 'cancelled');
      expect(dialog()).to.equal(null);
      expect(statusOf(el)).to.equal(t.threeDSCancelled);
      await expectReadable(el, dir, '3-D Secure cancelled');
    });

    it('declined, with each reason code', async () => {
      for (const reason of PAY_FAILURE_REASONS) {
        stub?.restore();
        stub = stubFetch(() =>
          json({
            outcome: 'failure',
            orderRef: 'order-9',
            code: '5105',
            reason,
            message: 'Declined (server text)',
          }),
        );
        const el = await form(lang, dir);
        await pay(el, 'failure');
        // Which text each reason reads as is card-form-states.test.ts's; here, that it shows.
        expect(statusOf(el), reason).to.equal(failureText(t, reason));
        await expectReadable(el, dir, `declined: ${reason}`);
      }
    });

    it('success', async () => {
      stub = stubFetch(() =>
        json({outcome: 'success', orderRef: 'order-9', code: '1000', message: 'Approved'}),
      );
      const el = await form(lang, dir);
      await pay(el, 'success');
      expect(statusOf(el)).to.equal(t.success);
      expect(buttonOf(el).textContent!.trim()).to.equal(t.paid);
      await expectReadable(el, dir, 'success');
    });

    it('rate limited', async () => {
      stub = stubFetch(() =>
        json({error: {code: 'rate_limited', message: 'too many', retryAfter: 30}}, 429),
      );
      const el = await form(lang, dir);
      await pay(el, 'error');
      expect(statusOf(el)).to.equal(fill(t.rateLimited, 30));
      await expectReadable(el, dir, 'rate limited');
    });
  });
}
