// How <pg-card-form> looks and reads: right-to-left pages (labels and layout follow the
// page, the card's digits stay left to right), the expiry that refuses an impossible month
// instead of turning it into another date, the brands' SVG marks, `accepted-brands`, the
// order's total on the pay button, and the dark colour scheme (preferred or chosen), with
// axe in RTL and in dark.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import {
  CVV,
  VISA,
  buttonOf,
  errorOf,
  futureExpiry,
  inputOf,
  json,
  markOf,
  onBuiltInRedirect,
  statusOf,
  stubFetch,
  typeInto,
  until,
} from './helpers.js';
import {loadMessages} from '../../src/i18n/messages.js';
import {emulateColorScheme, preferColorScheme} from './engine.js';

// Ukrainian loads on demand like every locale but English: have it at hand for the tests
// that read its texts at once.
before(() => loadMessages('uk'));

const DIGIT_FIELDS = ['number', 'expiry', 'cvv'] as const;
const MASTERCARD = '5555555555554444';

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(async () => {
  stub?.restore();
  stub = undefined;
  await emulateColorScheme('light');
});

async function rtlForm(): Promise<PgCardForm> {
  const wrapper = await fixture<HTMLDivElement>(html`
    <div dir="rtl" lang="ar" style="width: 360px">
      <pg-card-form endpoint="/checkout/pay" order-ref="order-rtl" holder-name></pg-card-form>
    </div>
  `);
  const el = wrapper.querySelector('pg-card-form')!;
  await el.updateComplete;
  return el;
}

const box = (node: Element) => node.getBoundingClientRect();

/** Where the text of a label is drawn (not its box, which spans the column). */
function textBox(node: Element): DOMRect {
  const range = document.createRange();
  range.selectNodeContents(node);
  return range.getBoundingClientRect();
}

describe('pg-card-form on a right-to-left page', () => {
  it('keeps number, expiry and code left to right, in order, and the rest right to left', async () => {
    const el = await rtlForm();
    await typeInto(el, 'number', '4242424242424241');
    await typeInto(el, 'expiry', '0120');
    await typeInto(el, 'cvv', '123');
    await el.updateComplete;
    expect(inputOf(el, 'number').value).to.equal('4242 4242 4242 4241');
    expect(inputOf(el, 'expiry').value).to.equal('01 / 20');
    for (const name of DIGIT_FIELDS) {
      const input = inputOf(el, name);
      expect(getComputedStyle(input).direction, name).to.equal('ltr');
      // Its text starts at the left edge, as on the card.
      expect(getComputedStyle(input).textAlign, name).to.be.oneOf(['start', 'left']);
    }
    expect(getComputedStyle(inputOf(el, 'holder')).direction).to.equal('rtl');
    for (const label of el.shadowRoot!.querySelectorAll('label')) {
      expect(getComputedStyle(label).direction, label.htmlFor).to.equal('rtl');
      // The label's text starts on the right, where the page starts.
      const field = label.closest('.field')!;
      expect(box(field).right - textBox(label).right, label.htmlFor).to.be.below(1);
    }
    for (const name of DIGIT_FIELDS) {
      const error = el.shadowRoot!.querySelector(`#${name}-error`)!;
      expect(getComputedStyle(error).direction, `${name} error`).to.equal('rtl');
    }
  });

  it('lays the row out in the page direction: expiry on the right of the code', async () => {
    const el = await rtlForm();
    expect(box(inputOf(el, 'expiry')).left).to.be.above(box(inputOf(el, 'cvv')).right);
  });

  it('keeps the brand mark on the right of the number, as on the card, clear of the digits', async () => {
    const el = await rtlForm();
    await typeInto(el, 'number', VISA);
    const mark = await markOf(el);
    const input = inputOf(el, 'number');
    expect(box(mark).right).to.be.closeTo(box(input).right - 8, 1);
    expect(parseFloat(getComputedStyle(input).paddingRight)).to.be.at.least(box(mark).width);
  });

  it('is accessible in right-to-left with errors shown', async () => {
    const el = await rtlForm();
    await typeInto(el, 'number', '4242');
    el.reportValidity();
    await el.updateComplete;
    await expect(el).to.be.accessible();
  });
});

describe('pg-card-form expiry month', () => {
  it('shows 1330 as card-validator reads it, 01 / 330, refused, never silently 01 / 33', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form></pg-card-form>`);
    await typeInto(el, 'expiry', '1330');
    await el.updateComplete;
    expect(inputOf(el, 'expiry').value).to.equal('01 / 330');
    expect(errorOf(el, 'expiry')).to.equal('Use MM / YY.');
    expect(inputOf(el, 'expiry').getAttribute('aria-invalid')).to.equal('true');
    expect(el.valid).to.equal(false);
  });

  it('refuses month 00, and a pasted 13 / 30, at once, in Ukrainian too', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="uk"></pg-card-form>`);
    await typeInto(el, 'expiry', '00');
    await el.updateComplete;
    expect(inputOf(el, 'expiry').value).to.equal('00 / ');
    expect(errorOf(el, 'expiry')).to.equal('Місяць: 01–12.');
    const pasted = await fixture<PgCardForm>(html`<pg-card-form></pg-card-form>`);
    inputOf(pasted, 'expiry').focus();
    document.execCommand('insertText', false, '13/30');
    await pasted.updateComplete;
    expect(inputOf(pasted, 'expiry').value).to.equal('13 / 30');
    expect(errorOf(pasted, 'expiry')).to.equal('Month: 01–12.');
  });
});

describe('pg-card-form brand marks', () => {
  const cases = [
    [VISA, 'visa', 'Visa'],
    [MASTERCARD, 'mastercard', 'Mastercard'],
    ['378282246310005', 'american-express', 'American Express'],
    // Brands without colours of their own: a --pg-color-brand card with the name.
    ['6362970000457013', 'elo', 'Elo'],
    ['6062821086773091', 'hipercard', 'Hipercard'],
  ] as const;
  for (const [number, type, name] of cases) {
    it(`shows ${name} as an inline SVG named "${name}"`, async () => {
      const el = await fixture<PgCardForm>(html`<pg-card-form></pg-card-form>`);
      expect(el.shadowRoot!.querySelector('[part="brand"]'), 'no mark before a brand').to.equal(
        null,
      );
      await typeInto(el, 'number', number);
      const mark = await markOf(el);
      expect(mark.localName).to.equal('svg');
      expect(mark.getAttribute('data-brand')).to.equal(type);
      expect(mark.getAttribute('role')).to.equal('img');
      expect(mark.getAttribute('aria-label')).to.equal(name);
      // CSP-safe: nothing to fetch, no style attribute anywhere in it.
      expect(mark.querySelector('image, use, [href], [style]')).to.equal(null);
      expect(mark.hasAttribute('style')).to.equal(false);
      expect(box(mark).width).to.be.above(20);
      const text = mark.querySelector('text');
      if (text) expect(text.getBBox().width, 'the name fits the mark').to.be.at.most(40);
      await expect(el).to.be.accessible();
    });
  }
});

describe('pg-card-form accepted-brands', () => {
  /** A form taking `accepted` brands, with a card of `number` typed in. */
  async function cardIn(accepted: string, number: string): Promise<PgCardForm> {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form
        endpoint="/checkout/pay"
        order-ref="order-brands"
        accepted-brands=${accepted}
      ></pg-card-form>`,
    );
    await typeInto(el, 'number', number);
    await typeInto(el, 'expiry', futureExpiry().typed);
    await typeInto(el, 'cvv', CVV);
    await el.updateComplete;
    return el;
  }

  it('refuses a Mastercard when only Visa is accepted, and sends nothing', async () => {
    stub = stubFetch(() => json({}));
    const el = await cardIn('visa', MASTERCARD);
    expect(errorOf(el, 'number')).to.equal('Mastercard is not accepted.');
    buttonOf(el).click();
    await el.updateComplete;
    await el.submit();
    expect(stub.calls).to.have.length(0);
    expect(el.valid).to.equal(false);
    expect(statusOf(el)).to.not.equal('');
    expect(errorOf(el, 'number')).to.equal('Mastercard is not accepted.');
    await expect(el).to.be.accessible();
  });

  it('takes a Visa when Visa is accepted', async () => {
    stub = stubFetch(() =>
      json({outcome: 'success', orderRef: 'order-brands', code: '1000', message: ''}),
    );
    const el = await cardIn('visa mastercard', VISA);
    await el.submit();
    expect(stub.calls).to.have.length(1);
    expect(el.state).to.equal('success');
  });

  it('refuses a complete number of a brand it cannot tell, in Ukrainian', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form lang="uk" accepted-brands="visa"></pg-card-form>`,
    );
    // A Prostir number: valid by Luhn, unknown to the brand table.
    await typeInto(el, 'number', '9804000000000009');
    await el.updateComplete;
    expect(errorOf(el, 'number')).to.equal('Ця картка не приймається.');
  });
});

describe('pg-card-form amount on the pay button', () => {
  it('shows the total in the form language, from the exact decimal string', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form amount="1250.5" currency="UAH"></pg-card-form>`,
    );
    expect(buttonOf(el).textContent!.replace(/\s+/g, ' ').trim()).to.equal('Pay UAH 1,250.50');
    el.lang = 'uk';
    el.amount = '999999999999.99';
    await el.updateComplete;
    // The hryvnia's sign is the engine's own CLDR data: "грн" in Chromium, "₴" in Firefox.
    const sign = new Intl.NumberFormat('uk', {style: 'currency', currency: 'UAH'})
      .formatToParts(1)
      .find((p) => p.type === 'currency')!.value;
    expect(buttonOf(el).textContent!.replace(/\s+/g, ' ').trim()).to.equal(
      `Сплатити 999 999 999 999,99 ${sign}`,
    );
  });

  it('shows plain "Pay" when the amount or currency is missing or not valid', async () => {
    const el = await fixture<PgCardForm>(
      html`<pg-card-form amount="12.345" currency="UAH"></pg-card-form>`,
    );
    expect(buttonOf(el).textContent!.trim()).to.equal('Pay');
    el.amount = '12.30';
    el.currency = '';
    await el.updateComplete;
    expect(buttonOf(el).textContent!.trim()).to.equal('Pay');
    el.currency = 'EUR';
    await el.updateComplete;
    expect(buttonOf(el).textContent!.trim()).to.equal('Pay €12.30');
  });
});

describe('pg-card-form colour scheme', () => {
  const colours = (el: PgCardForm) => ({
    text: getComputedStyle(el).color,
    surface: getComputedStyle(el).backgroundColor,
    input: getComputedStyle(inputOf(el, 'number')).backgroundColor,
    button: getComputedStyle(buttonOf(el)).backgroundColor,
  });
  const LIGHT = {
    text: 'rgb(31, 31, 31)',
    surface: 'rgba(0, 0, 0, 0)',
    input: 'rgb(255, 255, 255)',
    button: 'rgb(26, 86, 219)',
  };
  const DARK = {
    text: 'rgb(232, 232, 234)',
    surface: 'rgb(27, 27, 31)',
    input: 'rgb(42, 42, 48)',
    button: 'rgb(138, 180, 248)',
  };

  it('follows prefers-color-scheme: dark, unless theme="light"', async function () {
    await preferColorScheme(this, 'dark');
    const el = await fixture<PgCardForm>(html`<pg-card-form></pg-card-form>`);
    expect(colours(el)).to.deep.equal(DARK);
    el.theme = 'light';
    await el.updateComplete;
    expect(el.getAttribute('theme')).to.equal('light');
    expect(colours(el)).to.deep.equal(LIGHT);
  });

  it('is dark with theme="dark" whatever the preference, and light by default', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form></pg-card-form>`);
    expect(colours(el)).to.deep.equal(LIGHT);
    el.setAttribute('theme', 'dark');
    await el.updateComplete;
    expect(colours(el)).to.deep.equal(DARK);
  });

  it('passes theme="dark" on to its built-in 3-D Secure and status element', async () => {
    stub = stubFetch((r) =>
      r.url.endsWith('/pay')
        ? json({
            outcome: '3ds_required',
            orderRef: 'order-t',
            userActionUrl: 'https://acs.example/c',
          })
        : json({orderRef: 'order-t', state: 'success', final: true, code: '1000', message: ''}),
    );
    const el = await fixture<PgCardForm>(
      html`<pg-card-form
        endpoint="/checkout/pay"
        order-ref="order-t"
        three-ds-mode="iframe"
        theme="dark"
      ></pg-card-form>`,
    );
    let redirect: PgThreeDSRedirect | undefined;
    onBuiltInRedirect(el, (r) => (redirect = r));
    await typeInto(el, 'number', VISA);
    await typeInto(el, 'expiry', futureExpiry().typed);
    await typeInto(el, 'cvv', CVV);
    buttonOf(el).click();
    await until(() => !!redirect, 'the built-in redirect');
    expect(redirect!.getAttribute('theme')).to.equal('dark');
    expect(getComputedStyle(redirect!).color).to.equal(DARK.text);
  });

  it("keeps the merchant's --pg-color-* in the dark scheme", async function () {
    await preferColorScheme(this, 'dark');
    const el = await fixture<PgCardForm>(
      html`<pg-card-form style="--pg-color-button: #0b7a3b"></pg-card-form>`,
    );
    expect(getComputedStyle(buttonOf(el)).backgroundColor).to.equal('rgb(11, 122, 59)');
  });

  it('is accessible in the dark, with errors, the hint and a brand shown, in RTL too', async function () {
    await preferColorScheme(this, 'dark');
    const el = await fixture<PgCardForm>(
      html`<pg-card-form holder-name amount="10" currency="UAH"></pg-card-form>`,
    );
    await typeInto(el, 'number', '4242');
    await markOf(el);
    el.reportValidity();
    await el.updateComplete;
    await expect(el).to.be.accessible();
    const rtl = await rtlForm();
    rtl.reportValidity();
    await rtl.updateComplete;
    await expect(rtl).to.be.accessible();
  });
});
