// <pg-card-form> never moves its fields when an error appears: at 320 px and 480 px, in
// every shipped language, every error each field can show (one at a time and all at once)
// leaves every input, the pay button and the status line exactly where they were; and the
// half-width columns (expiry and code, first and last name) stay aligned whatever the brand.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {SHIPPED_LOCALES, loadMessages} from '../../src/i18n/messages.js';
import {errorOf, inputOf} from './helpers.js';

const WIDTHS = [320, 480];
const LANGS = SHIPPED_LOCALES;

/** A month that is over everywhere (the one before this in UTC−12), as typed digits. */
function pastExpiry() {
  const earliest = new Date(Date.now() - 12 * 3600_000);
  const last = new Date(Date.UTC(earliest.getUTCFullYear(), earliest.getUTCMonth() - 1, 1));
  const mm = String(last.getUTCMonth() + 1).padStart(2, '0');
  return mm + String(last.getUTCFullYear() % 100).padStart(2, '0');
}

/** What to type into a field, then leave it, to raise each of its errors. */
const ERROR_STATES: Array<{field: string; value: string; what: string}> = [
  {field: 'number', value: '4242', what: 'incomplete number'},
  {field: 'number', value: '4242424242424241', what: 'Luhn-invalid number'},
  {field: 'expiry', value: '1', what: 'incomplete expiry'},
  {field: 'expiry', value: '13/', what: 'no such month'},
  {field: 'expiry', value: pastExpiry(), what: 'expired'},
  {field: 'cvv', value: '1', what: 'short code'},
  {field: 'holder', value: ' ', what: 'blank holder'},
  {field: 'holder', value: 'A'.repeat(129), what: 'holder too long'},
  {field: 'firstName', value: 'A'.repeat(257), what: 'name too long'},
  {field: 'email', value: 'nope', what: 'bad email'},
  {field: 'email', value: 'оля@приклад.укр', what: 'email not in Latin letters'},
  {field: 'phone', value: '12', what: 'short phone'},
  {field: 'phone', value: '050 123 45 67 ext 2', what: 'phone with letters'},
  {field: 'phone', value: '1'.repeat(32), what: 'long phone'},
];

type Box = {top: number; left: number; width: number; height: number};

/** Boxes of every input, the button and the status line, by name. */
function boxes(el: PgCardForm): Record<string, Box> {
  const out: Record<string, Box> = {};
  const root = el.shadowRoot!;
  const named = [
    ...[...root.querySelectorAll('input')].map((i) => [i.id, i] as const),
    ['button', root.querySelector('button[type="submit"]')!] as const,
    ['status', root.querySelector('[part="status"]')!] as const,
  ];
  for (const [name, node] of named) {
    const {top, left, width, height} = node.getBoundingClientRect();
    out[name] = {top, left, width, height};
  }
  return out;
}

/** Puts `value` into a field as typing would, then leaves the field. */
async function enter(el: PgCardForm, field: string, value: string): Promise<void> {
  const input = inputOf(el, field);
  input.focus();
  input.value = value;
  input.dispatchEvent(
    new InputEvent('input', {bubbles: true, composed: true, inputType: 'insertFromPaste'}),
  );
  input.blur();
  await el.updateComplete;
}

describe('pg-card-form layout stability', () => {
  for (const width of WIDTHS) {
    for (const lang of LANGS) {
      describe(`at ${width} px in ${lang}`, () => {
        const make = () =>
          loadMessages(lang).then(() =>
            fixture<PgCardForm>(html`
              <div style="width: ${width}px">
                <pg-card-form
                  lang=${lang}
                  holder-name
                  customer-name
                  customer-email
                  customer-phone
                ></pg-card-form>
              </div>
            `).then(async (div) => {
              const el = div.querySelector('pg-card-form')!;
              await el.updateComplete;
              return el;
            }),
          );

        for (const state of ERROR_STATES) {
          it(`moves nothing when the ${state.field} field shows "${state.what}"`, async () => {
            const el = await make();
            const before = boxes(el);
            await enter(el, state.field, state.value);
            expect(errorOf(el, state.field), 'an error is shown').to.not.equal('');
            expect(boxes(el)).to.deep.equal(before);
          });
        }

        it('moves nothing when every empty field is flagged at once, or when the Amex code is short', async () => {
          const el = await make();
          const before = boxes(el);
          el.reportValidity();
          await el.updateComplete;
          for (const field of ['number', 'expiry', 'cvv', 'holder', 'firstName', 'email'])
            expect(errorOf(el, field), field).to.not.equal('');
          expect(boxes(el)).to.deep.equal(before);
          await enter(el, 'number', '378282246310005');
          await enter(el, 'cvv', '12');
          expect(errorOf(el, 'cvv')).to.not.equal('');
          expect(boxes(el)).to.deep.equal(before);
        });

        it('aligns the half-width columns whatever the brand names the code', async () => {
          for (const number of ['4242424242424242', '378282246310005', '5555555555554444']) {
            const el = await make();
            await enter(el, 'number', number);
            const at = boxes(el);
            expect(at['expiry']!.top, `${number}: expiry and code`).to.equal(at['cvv']!.top);
            expect(at['firstName']!.top, 'first and last name').to.equal(at['lastName']!.top);
          }
        });

        it('keeps every built-in error of the half-width columns on one line', async () => {
          const el = await make();
          await enter(el, 'expiry', pastExpiry());
          await enter(el, 'cvv', '1');
          await enter(el, 'firstName', 'A'.repeat(257));
          el.reportValidity();
          await el.updateComplete;
          for (const field of ['expiry', 'cvv', 'firstName', 'lastName']) {
            const error = el.shadowRoot!.querySelector<HTMLElement>(`#${field}-error`)!;
            const lineHeight = parseFloat(getComputedStyle(error).lineHeight);
            expect(error.textContent!.trim(), field).to.not.equal('');
            expect(error.scrollHeight, `${field}: "${error.textContent}"`).to.be.at.most(
              Math.ceil(lineHeight),
            );
          }
        });
      });
    }
  }
});
