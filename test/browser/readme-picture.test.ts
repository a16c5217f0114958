// The README's picture shows what its alt text says. The test reads the README's `<img>`,
// renders the form in the state the words describe (a customer's first look: card number,
// expiry, security code and the Pay button, nothing typed, no error), checks every part the
// alt text names is shown and no error is, and saves that very picture (Chromium) under the
// name the README uses. The README showed the phone-layout picture: seven "Required." errors
// under fields the alt text does not name.
import {expect, fixture, html} from '@open-wc/testing';
import {executeServerCommand} from '@web/test-runner-commands';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {en} from '../../src/i18n/messages.js';
import {setViewport} from './engine.js';

/** The picture's file and words, as the README has them. */
async function readmePicture(): Promise<{src: string; alt: string}> {
  const readme = await (await fetch('/README.md')).text();
  const img = /<img src="([^"]+)"[^>]*\balt="([^"]+)"/.exec(readme);
  if (!img) throw new Error('the README has no <img src=… alt=…>');
  return {src: img[1]!, alt: img[2]!};
}

after(() => setViewport({width: 800, height: 600}));

describe("the README's picture", () => {
  it('shows what its alt text says, and is saved from this test', async () => {
    const {src, alt} = await readmePicture();
    expect(src).to.equal('docs/screenshots/card-form-en.png');
    expect(alt).to.equal('The card form: card number, expiry, security code and a Pay button');
    await setViewport({width: 360, height: 600});
    const page = await fixture<HTMLDivElement>(html`
      <div
        lang="en"
        style="position: absolute; inset: 0 auto auto 0; box-sizing: border-box; width: 360px; padding: 16px; background: Canvas; font-family: system-ui, sans-serif"
      >
        <pg-card-form amount="12500.00" currency="UAH"></pg-card-form>
      </div>
    `);
    const el = page.querySelector<PgCardForm>('pg-card-form')!;
    await el.updateComplete;
    const root = el.shadowRoot!;
    const labels = [...root.querySelectorAll('label')].map((l) => l.textContent!.trim());
    // The parts the alt text names, and no other field.
    expect(labels.map((l) => l.replace(/\s+/g, ' '))).to.deep.equal([
      en.cardNumber,
      `${en.expiry} (${en.expiryHint})`,
      en.cvv,
    ]);
    expect(root.querySelector('button[type="submit"]')!.textContent).to.include(en.pay);
    const errors = [...root.querySelectorAll('.field__error')].map((e) => e.textContent!.trim());
    expect(errors.filter(Boolean), 'no error shown').to.deep.equal([]);
    expect(root.querySelector('[part="status"]')!.textContent!.trim()).to.equal('');
    const r = page.getBoundingClientRect();
    await executeServerCommand('pg-screenshot', {
      name: src.slice('docs/screenshots/'.length),
      clip: {x: r.x, y: r.y, width: r.width, height: r.height},
    });
  });
});
