// <pg-card-form> and the field rules: a value the gateway would refuse is refused in the
// form, under its field, in the customer's language, and nothing is sent; a value that only
// needs its separators removed is sent without them. The four examples and the
// phones no normalising can save, in English and Ukrainian.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {en, fill, type CheckoutMessages} from '../../src/i18n/messages.js';
import {uk} from '../../src/i18n/locales/uk.js';
import type {PayRequest} from '../../src/protocol/checkout.js';
import {
  buttonOf,
  errorOf,
  fillCard,
  inputOf,
  json,
  statusOf,
  stubFetch,
  typeInto,
  until,
} from './helpers.js';
import {loadMessages} from '../../src/i18n/messages.js';

// Ukrainian loads on demand like every locale but English: have it at hand for the tests
// that read its texts at once.
before(() => loadMessages('uk'));

const SUCCESS = {outcome: 'success', orderRef: 'order-7', code: '1000', message: 'Approved'};

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
});

/** A form asking for every customer field, filled with valid values but for `over`. */
async function filledForm(
  lang: string,
  over: {email?: string; phone?: string},
): Promise<PgCardForm> {
  const el = await fixture<PgCardForm>(
    html`<pg-card-form
      lang=${lang}
      endpoint="/checkout/pay"
      order-ref="order-7"
      customer-name
      customer-email
      customer-phone
    ></pg-card-form>`,
  );
  await fillCard(el);
  await typeInto(el, 'firstName', 'Ada');
  await typeInto(el, 'lastName', 'Lovelace');
  await typeInto(el, 'email', over.email ?? 'ada@example.com');
  await typeInto(el, 'phone', over.phone ?? '+380501234567');
  await el.updateComplete;
  return el;
}

/** Presses Pay and waits for the form to settle. */
async function pressPay(el: PgCardForm): Promise<void> {
  buttonOf(el).click();
  await el.updateComplete;
}

const LOCALES: Array<[string, CheckoutMessages]> = [
  ['en', en],
  ['uk', uk],
];

/** Values the gateway refuses that no normalising can save, and what the form says. */
const REFUSED: Array<{
  field: 'email' | 'phone';
  value: string;
  message: (t: CheckoutMessages) => string;
}> = [
  {field: 'email', value: 'оля@приклад.укр', message: (t) => t.emailLatin},
  {field: 'email', value: 'ada@example.c', message: (t) => t.emailInvalid},
  {field: 'phone', value: '050 123 45 67 ext 2', message: (t) => t.phoneInvalid},
  {field: 'phone', value: '+38O501234567', message: (t) => t.phoneInvalid},
  {field: 'phone', value: '123-45', message: (t) => t.phoneTooShort},
  {field: 'phone', value: `+${'1'.repeat(32)}`, message: (t) => t.phoneTooLong},
];

describe('pg-card-form refuses what the gateway would refuse, before sending', () => {
  for (const [lang, t] of LOCALES) {
    for (const {field, value, message} of REFUSED) {
      it(`${lang}: ${field} ${value} shows "${message(t)}" under the field and sends nothing`, async () => {
        stub = stubFetch(() => json(SUCCESS));
        const el = await filledForm(lang, {[field]: value});
        await pressPay(el);
        expect(errorOf(el, field)).to.equal(message(t));
        expect(inputOf(el, field).getAttribute('aria-invalid')).to.equal('true');
        expect(el.shadowRoot!.activeElement).to.equal(inputOf(el, field));
        expect(statusOf(el)).to.equal(fill(t.fixFields, 1, lang));
        expect(el.valid).to.equal(false);
        expect(stub.calls).to.have.length(0);
        await expect(el).to.be.accessible();
      });
    }
  }

  it('says at once, while typing, that an address needs Latin letters', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form lang="uk" customer-email></pg-card-form>`,
    );
    await typeInto(el, 'email', 'оля');
    await el.updateComplete;
    expect(errorOf(el, 'email')).to.equal(uk.emailLatin);
  });
});

describe('pg-card-form sends what customers naturally type, normalised', () => {
  for (const [typed, sent] of [
    ['(050)1234567', '0501234567'],
    ['+380.50.123.4567', '+380501234567'],
    ['+380 (50) 123-45-67', '+380501234567'],
  ]) {
    it(`takes the phone ${typed} and sends ${sent}`, async () => {
      stub = stubFetch(() => json(SUCCESS));
      const el = await filledForm('uk', {phone: typed, email: '  ada@example.com '});
      expect(el.valid).to.equal(true);
      await pressPay(el);
      await until(() => stub!.calls.length === 1);
      expect(errorOf(el, 'phone')).to.equal('');
      const body = stub.calls[0]!.body as PayRequest;
      expect(body.customer).to.deep.equal({
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: sent,
      });
    });
  }
});
