// Card entry as a customer does it, key by key through the real keyboard (`sendKeys`), in
// every engine the suite runs: each expiry spelling the form takes (MM/YY, MM/YYYY, M/YY,
// MMYY, MMYYYY, space, `-` and `.` separators, YYYY-MM), checking after every key what the
// field shows, where the caret is, `aria-invalid` and the message (never "expired"
// part-way); the same spellings pasted; the month changed in place; a number at a length
// its brand does not have; the code asked for at its brand's length; and the page's Accept
// header and a valid language in the fingerprint the form sends. Standard DOM and
// @open-wc/testing only.
import {expect, fixture, html} from '@open-wc/testing';
import {sendKeys} from '@web/test-runner-commands';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {en, loadMessages, messagesReady} from '../../src/i18n/messages.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {
  VISA,
  errorOf,
  tick,
  futureExpiry,
  inputOf,
  json,
  press,
  stubFetch,
  typeInto,
} from './helpers.js';

const SUCCESS_BODY = {outcome: 'success', orderRef: 'order-1', code: '1000', message: 'Approved'};

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
});

/** A year eight ahead, as the customer types it: `2034` and `34` in 2026. */
const Y4 = String(new Date().getFullYear() + 8);
const Y2 = Y4.slice(2);
const Y1 = Y2[0]!;
/** The first three digits of the year, on their way: `203`. */
const Y3 = Y4.slice(0, 3);

/** A spelling, the keys typed, and what the field shows after each key. */
interface Spelling {
  name: string;
  keys: string;
  shown: string[];
  /** `MM / YY` once whole. */
  whole: string;
}

const SPELLINGS: Spelling[] = [
  {
    name: 'MM/YYYY',
    keys: `01/${Y4}`,
    shown: ['0', '01 / ', '01 / ', `01 / ${Y4[0]}`, '01 / 20', `01 / ${Y3}`, `01 / ${Y2}`],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'MM / YYYY',
    keys: `01 / ${Y4}`,
    shown: [
      '0',
      '01 / ',
      '01 / ',
      '01 / ',
      '01 / ',
      '01 / 2',
      '01 / 20',
      `01 / ${Y3}`,
      `01 / ${Y2}`,
    ],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'MMYYYY',
    keys: `01${Y4}`,
    shown: ['0', '01 / ', '01 / 2', '01 / 20', `01 / ${Y3}`, `01 / ${Y2}`],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'M/YYYY',
    keys: `1/${Y4}`,
    shown: ['1', '01 / ', '01 / 2', '01 / 20', `01 / ${Y3}`, `01 / ${Y2}`],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'MM / YYYY, October',
    keys: `10 / ${Y4}`,
    shown: [
      '1',
      '10 / ',
      '10 / ',
      '10 / ',
      '10 / ',
      '10 / 2',
      '10 / 20',
      `10 / ${Y3}`,
      `10 / ${Y2}`,
    ],
    whole: `10 / ${Y2}`,
  },
  {
    name: 'M YY (a space)',
    keys: `1 ${Y2}`,
    shown: ['1', '01 / ', `01 / ${Y1}`, `01 / ${Y2}`],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'YYYY-MM',
    keys: `${Y4}-10`,
    shown: ['2', '20', Y3, Y4, `${Y4}-`, `${Y4}-1`, `10 / ${Y2}`],
    whole: `10 / ${Y2}`,
  },
  {
    name: 'MM/YY',
    keys: `10/${Y2}`,
    shown: ['1', '10 / ', '10 / ', `10 / ${Y1}`, `10 / ${Y2}`],
    whole: `10 / ${Y2}`,
  },
  {
    name: 'M/YY',
    keys: `9/${Y2}`,
    shown: ['09 / ', '09 / ', `09 / ${Y1}`, `09 / ${Y2}`],
    whole: `09 / ${Y2}`,
  },
  {
    name: 'MMYY, December',
    keys: `12${Y2}`,
    shown: ['1', '12', `12 / ${Y1}`, `12 / ${Y2}`],
    whole: `12 / ${Y2}`,
  },
  {
    name: 'MM-YY',
    keys: `10-${Y2}`,
    shown: ['1', '10 / ', '10 / ', `10 / ${Y1}`, `10 / ${Y2}`],
    whole: `10 / ${Y2}`,
  },
  {
    name: 'M.YY',
    keys: `1.${Y2}`,
    shown: ['1', '01 / ', `01 / ${Y1}`, `01 / ${Y2}`],
    whole: `01 / ${Y2}`,
  },
  {
    name: 'MM.YYYY',
    keys: `12.${Y4}`,
    shown: ['1', '12', '12 / ', '12 / 2', '12 / 20', `12 / ${Y3}`, `12 / ${Y2}`],
    whole: `12 / ${Y2}`,
  },
];

async function cardForm(lang = 'en'): Promise<PgCardForm> {
  return fixture<PgCardForm>(html`<pg-card-form lang=${lang}></pg-card-form>`);
}

/** What a customer sees of field `name` now. */
function seen(el: PgCardForm, name: string) {
  const input = inputOf(el, name);
  return {
    value: input.value,
    caret: [input.selectionStart, input.selectionEnd],
    invalid: input.getAttribute('aria-invalid'),
    message: errorOf(el, name),
  };
}

describe('typing the expiry key by key', () => {
  for (const spelling of SPELLINGS) {
    it(`${spelling.name} (${spelling.keys}): shown as understood, caret at the end, never wrong part-way`, async () => {
      const el = await cardForm();
      inputOf(el, 'expiry').focus();
      const keys = [...spelling.keys];
      expect(keys.length, 'one expectation per key').to.equal(spelling.shown.length);
      for (const [i, key] of keys.entries()) {
        await sendKeys({type: key});
        await el.updateComplete;
        const now = seen(el, 'expiry');
        const where = `${spelling.keys}, after ${JSON.stringify(spelling.keys.slice(0, i + 1))}`;
        expect(now.value, where).to.equal(spelling.shown[i]);
        expect(now.caret, where).to.deep.equal([now.value.length, now.value.length]);
        expect(now.invalid, where).to.equal('false');
        expect(now.message, where).to.equal('');
      }
      await press('Tab');
      await el.updateComplete;
      expect(seen(el, 'expiry')).to.deep.equal({
        value: spelling.whole,
        caret: [spelling.whole.length, spelling.whole.length],
        invalid: 'false',
        message: '',
      });
    });
  }

  it('shows YYYY-M, a whole date, as MM / YY once the customer leaves it', async () => {
    const el = await cardForm();
    await typeInto(el, 'expiry', `${Y4}-1`);
    expect(inputOf(el, 'expiry').value).to.equal(`${Y4}-1`);
    await press('Tab');
    await el.updateComplete;
    expect(inputOf(el, 'expiry').value).to.equal(`01 / ${Y2}`);
    expect(errorOf(el, 'expiry')).to.equal('');
  });

  it('says a two-digit year that is over has expired, in the customer’s language', async () => {
    const past = String(new Date().getFullYear() - 2).slice(2);
    for (const [lang, text] of [
      ['en', 'Card has expired.'],
      ['uk', 'Термін минув.'],
    ] as const) {
      const el = await cardForm(lang);
      await typeInto(el, 'expiry', `10${past}`);
      // The language's table is fetched on demand; what the customer sees once it is here.
      await loadMessages(lang);
      await el.updateComplete;
      expect(seen(el, 'expiry')).to.deep.include({
        value: `10 / ${past}`,
        invalid: 'true',
        message: text,
      });
    }
  });

  it('an error shown before the language’s texts arrive is rewritten in that language when they do', async () => {
    const past = String(new Date().getFullYear() - 2).slice(2);
    const el = await cardForm('pl');
    // Typed before Polish is at hand (a slow network): the error can only read in English.
    expect(messagesReady('pl'), 'Polish is still on its way').to.equal(false);
    const input = inputOf(el, 'expiry');
    input.value = `10${past}`;
    input.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true}));
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal('Card has expired.');
    await loadMessages('pl');
    await el.updateComplete;
    expect(seen(el, 'expiry')).to.deep.include({invalid: 'true', message: 'Karta wygasła.'});
  });

  it('says an error already shown in the language its texts arrive in later, and when the page’s language changes', async () => {
    // The Ukrainian table loads on demand: the form reads in English until it is here. An
    // error shown meanwhile must not stay English once it is (nor after a later lang change).
    const past = String(new Date().getFullYear() - 2).slice(2);
    const el = await cardForm('tr');
    await typeInto(el, 'expiry', `10${past}`);
    await el.updateComplete;
    expect(seen(el, 'expiry').invalid).to.equal('true');
    el.setAttribute('lang', 'uk');
    await loadMessages('uk');
    await tick(); // the form hears of a lang attribute through a MutationObserver
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal(uk.expiryPast);
    el.setAttribute('lang', 'en');
    await tick();
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal(en.expiryPast);
  });

  it('changes the month in place: the caret stays after it and the year is kept', async () => {
    const el = await cardForm();
    await typeInto(el, 'expiry', `12${Y2}`);
    const input = inputOf(el, 'expiry');
    input.setSelectionRange(0, 2);
    await sendKeys({type: '1'});
    expect([input.value, input.selectionStart]).to.deep.equal([`1 / ${Y2}`, 1]);
    await sendKeys({type: '1'});
    expect([input.value, input.selectionStart]).to.deep.equal([`11 / ${Y2}`, 2]);
    await el.updateComplete;
    expect(errorOf(el, 'expiry')).to.equal('');
  });

  it('takes every spelling pasted, shown as MM / YY, and leaves pasted text that is no date as it is, refused', async () => {
    for (const spelling of SPELLINGS) {
      const el = await cardForm();
      const input = inputOf(el, 'expiry');
      input.focus();
      input.value = spelling.keys;
      input.dispatchEvent(
        new InputEvent('input', {inputType: 'insertFromPaste', bubbles: true, composed: true}),
      );
      await el.updateComplete;
      expect(input.value, spelling.name).to.equal(spelling.whole);
      expect(input.selectionStart, spelling.name).to.equal(spelling.whole.length);
      expect(errorOf(el, 'expiry'), spelling.name).to.equal('');
    }
    const el = await cardForm();
    const input = inputOf(el, 'expiry');
    input.focus();
    input.value = `Exp. 10/${Y2}`;
    input.dispatchEvent(
      new InputEvent('input', {inputType: 'insertFromPaste', bubbles: true, composed: true}),
    );
    expect(input.value, 'the date in pasted text').to.equal(`10 / ${Y2}`);
    input.value = '1330';
    input.dispatchEvent(
      new InputEvent('input', {inputType: 'insertFromPaste', bubbles: true, composed: true}),
    );
    await el.updateComplete;
    expect(input.value, 'never cut into another date (01 / 33)').to.equal('01 / 330');
    expect(errorOf(el, 'expiry')).to.equal('Use MM / YY.');
  });
});

describe('length and code by brand', () => {
  it('refuses a 13-digit Visa and a 15-digit Mastercard, naming the lengths their brand has', async () => {
    const el = await cardForm();
    await typeInto(el, 'number', '4222222222222');
    await el.updateComplete;
    expect(errorOf(el, 'number'), 'still typing: Visa numbers may have 16').to.equal('');
    await press('Tab');
    await el.updateComplete;
    expect(seen(el, 'number')).to.deep.include({
      invalid: 'true',
      message: 'Visa: 16, 18, or 19 digits.',
    });
    const mastercard = await cardForm('uk');
    await typeInto(mastercard, 'number', '555555555555442');
    await press('Tab');
    await mastercard.updateComplete;
    expect(errorOf(mastercard, 'number')).to.equal('Mastercard: 16 цифр.');
  });

  it('says a UnionPay number failing Luhn is not accepted: card-validator takes it, the gateway does not', async () => {
    const el = await cardForm();
    await typeInto(el, 'number', '6221558812340000');
    await press('Tab');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.equal('This card is not accepted.');
  });

  it('asks for the code at its brand’s length: 3 on Visa, 4 on American Express, said in the field', async () => {
    const el = await cardForm();
    expect(inputOf(el, 'cvv').placeholder, 'no brand yet').to.equal('');
    await typeInto(el, 'number', VISA);
    await el.updateComplete;
    expect(inputOf(el, 'cvv').placeholder).to.equal('3 digits');
    await typeInto(el, 'cvv', '1234');
    expect(inputOf(el, 'cvv').value, 'no fourth digit on Visa').to.equal('123');
    const amex = await cardForm('uk');
    await typeInto(amex, 'number', '378282246310005');
    await amex.updateComplete;
    expect(inputOf(amex, 'cvv').placeholder).to.equal('4 цифри');
    await typeInto(amex, 'cvv', '123');
    await press('Tab');
    await amex.updateComplete;
    expect(seen(amex, 'cvv')).to.deep.include({invalid: 'true', message: 'Введіть 4 цифри.'});
  });
});

describe('the fingerprint the form sends', () => {
  it('carries the page’s Accept header the server wrote in, and a valid language', async () => {
    stub = stubFetch(() => json(SUCCESS_BODY));
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const el = await fixture<PgCardForm>(
      html`<pg-card-form
        endpoint="/pay"
        order-ref="order-1"
        accept-header=${accept}
      ></pg-card-form>`,
    );
    await typeInto(el, 'number', VISA);
    await typeInto(el, 'expiry', futureExpiry().typed);
    await typeInto(el, 'cvv', '737');
    await press('Enter');
    await el.updateComplete;
    const body = stub.calls.find((c) => c.url.endsWith('/pay'))?.body as {
      fingerprint: {browserAcceptHeader?: string; browserLanguage: string};
    };
    expect(body.fingerprint.browserAcceptHeader).to.equal(accept);
    expect(Intl.getCanonicalLocales(body.fingerprint.browserLanguage)).to.have.length(1);
  });

  it('sends no Accept header of its own when the page gave none: the companion’s default stands', async () => {
    stub = stubFetch(() => json(SUCCESS_BODY));
    const el = await fixture<PgCardForm>(
      html`<pg-card-form endpoint="/pay" order-ref="order-1"></pg-card-form>`,
    );
    await typeInto(el, 'number', VISA);
    await typeInto(el, 'expiry', futureExpiry().typed);
    await typeInto(el, 'cvv', '737');
    await press('Enter');
    await el.updateComplete;
    const call = stub.calls.find((c) => c.url.endsWith('/pay'))!;
    expect((call.body as {fingerprint: object}).fingerprint).to.not.have.property(
      'browserAcceptHeader',
    );
  });
});
