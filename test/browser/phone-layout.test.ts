// <pg-card-form> on a phone, in every shipped language (`SHIPPED_LOCALES`): at 320, 360
// and 414 px, with every field, the total on the button and errors
// shown, the fields of a row stay in line however their labels wrap, and nothing overflows
// the form or the screen. The 360 px layout of each language is saved as
// docs/screenshots/card-form-360-<locale>.png (and one in the dark scheme).
import {expect, fixture, html} from '@open-wc/testing';
import {executeServerCommand} from '@web/test-runner-commands';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {SHIPPED_LOCALES, loadMessages} from '../../src/i18n/messages.js';
import {VISA, inputOf, markOf, typeInto} from './helpers.js';
import {emulateColorScheme, preferColorScheme, setViewport} from './engine.js';

const LOCALES = SHIPPED_LOCALES;

// Every table at hand before the first layout: a locale that loads on demand would
// otherwise be measured in English first.
before(() => Promise.all(SHIPPED_LOCALES.map((l) => loadMessages(l))));
const WIDTHS = [320, 360, 414];
/** The page's own margin on a phone: the form gets the width less twice this. */
const PAGE_PADDING = 16;
/** Layout rounding. */
const EPSILON = 0.5;

type TextInfo = {direction?: string};
/** The writing direction of `locale`, as Intl knows it. */
function directionOf(locale: string): string {
  const info = new Intl.Locale(locale) as Intl.Locale & {
    textInfo?: TextInfo;
    getTextInfo?: () => TextInfo;
  };
  return (info.getTextInfo?.() ?? info.textInfo)?.direction ?? 'ltr';
}

after(async () => {
  await setViewport({width: 800, height: 600});
  await emulateColorScheme('light');
});

/** A phone page `width` px wide with the form in it, the number typed and errors shown. */
async function phonePage(width: number, locale: string) {
  await setViewport({width, height: 1000});
  const page = await fixture<HTMLDivElement>(html`
    <div
      lang=${locale}
      dir=${directionOf(locale)}
      style="position: absolute; inset: 0 auto auto 0; box-sizing: border-box; width: ${width}px; padding: ${PAGE_PADDING}px; background: Canvas; color-scheme: light dark; font-family: system-ui, sans-serif"
    >
      <pg-card-form
        holder-name
        customer-name
        customer-email
        customer-phone
        amount="12500.00"
        currency="UAH"
      ></pg-card-form>
    </div>
  `);
  const el = page.querySelector('pg-card-form')!;
  await typeInto(el, 'number', VISA);
  await markOf(el);
  inputOf(el, 'number').blur();
  el.reportValidity();
  await el.updateComplete;
  return {page, el};
}

const box = (node: Element) => node.getBoundingClientRect();

function expectInLine(el: PgCardForm, a: string, b: string, where: string): void {
  const [first, second] = [inputOf(el, a), inputOf(el, b)];
  expect(box(first).top, `${where}: ${a} and ${b} inputs`).to.be.closeTo(box(second).top, EPSILON);
  expect(box(first).height, `${where}: ${a} and ${b} heights`).to.be.closeTo(
    box(second).height,
    EPSILON,
  );
  const labels = [first, second].map((input) => input.closest('.field')!.querySelector('label')!);
  // Labels end on the same line, right above their inputs, whichever of them wraps.
  expect(box(labels[0]!).bottom, `${where}: ${a} and ${b} labels`).to.be.closeTo(
    box(labels[1]!).bottom,
    EPSILON,
  );
  for (const [i, label] of labels.entries()) {
    const input = i === 0 ? first : second;
    expect(box(input).top - box(label).bottom, `${where}: ${label.htmlFor} label gap`).to.be.below(
      8,
    );
  }
}

function expectNothingOverflows(el: PgCardForm, where: string): void {
  const host = box(el);
  const root = el.shadowRoot!;
  const nodes = root.querySelectorAll<HTMLElement>(
    'label, input, .field__error, button, [part="status"], [part="brand"]',
  );
  expect(nodes.length).to.be.above(10);
  for (const node of nodes) {
    const r = box(node);
    const name = `${where}: ${node.localName}#${node.id} ${node.getAttribute('for') ?? ''}`;
    expect(r.left, `${name} left`).to.be.at.least(host.left - EPSILON);
    expect(r.right, `${name} right`).to.be.at.most(host.right + EPSILON);
    if (!(node instanceof SVGElement) && node.localName !== 'input') {
      expect(node.scrollWidth, `${name} scrolls`).to.be.at.most(node.clientWidth + 1);
    }
  }
  expect(document.documentElement.scrollWidth, `${where}: page scrolls sideways`).to.be.at.most(
    window.innerWidth,
  );
  // The digits never run under the brand mark.
  const mark = root.querySelector('[part="brand"]')!;
  const number = inputOf(el, 'number');
  expect(parseFloat(getComputedStyle(number).paddingRight), where).to.be.at.least(box(mark).width);
}

describe('pg-card-form on a phone', () => {
  for (const locale of LOCALES) {
    for (const width of WIDTHS) {
      it(`keeps rows in line and nothing overflowing at ${width} px in ${locale}`, async () => {
        const {el} = await phonePage(width, locale);
        const where = `${width} px ${locale}`;
        expectInLine(el, 'expiry', 'cvv', where);
        expectInLine(el, 'firstName', 'lastName', where);
        expectNothingOverflows(el, where);
        if (width === 360) {
          const {x, y, width: w, height: h} = box(el.parentElement!);
          await executeServerCommand('pg-screenshot', {
            name: `card-form-360-${locale}.png`,
            clip: {x, y, width: w, height: h},
          });
        }
      });
    }
  }

  for (const locale of LOCALES) {
    it(`keeps the longest brand refusal on one line at 320 px in ${locale}`, async () => {
      await setViewport({width: 320, height: 800});
      const el = await fixture<PgCardForm>(html`
        <div lang=${locale} style="width: ${320 - 2 * PAGE_PADDING}px; font-family: system-ui">
          <pg-card-form accepted-brands="visa"></pg-card-form>
        </div>
      `).then((div) => div.querySelector('pg-card-form')!);
      await typeInto(el, 'number', '378282246310005'); // American Express
      await el.updateComplete;
      const error = el.shadowRoot!.querySelector<HTMLElement>('#number-error')!;
      expect(error.textContent, locale).to.include('American Express');
      const lineHeight = parseFloat(getComputedStyle(error).lineHeight);
      expect(error.scrollHeight, error.textContent!).to.be.at.most(Math.ceil(lineHeight));
    });
  }

  it('keeps rows in line in the dark scheme too, and saves its screenshot', async function () {
    await preferColorScheme(this, 'dark');
    const {page, el} = await phonePage(360, 'en');
    expect(getComputedStyle(el).backgroundColor).to.equal('rgb(27, 27, 31)');
    expectInLine(el, 'expiry', 'cvv', 'dark');
    expectNothingOverflows(el, 'dark');
    const {x, y, width, height} = box(page);
    await executeServerCommand('pg-screenshot', {
      name: 'card-form-360-en-dark.png',
      clip: {x, y, width, height},
    });
  });
});
