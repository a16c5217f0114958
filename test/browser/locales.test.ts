// <pg-card-form> in a language loaded on demand: Polish and Arabic tables are separate
// modules fetched when a form asks for them, the form re-renders in that language once it
// arrives, counts its fields to correct in the language's plural forms, reports `rtl` for
// Arabic, and an unknown language, or a page's own registered texts, are handled too.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {loadMessages, localeDirection, registerMessages} from '../../src/i18n/messages.js';
import {buttonOf, statusOf, typeInto, until} from './helpers.js';

const VISA = '4242424242424242';

const label = (el: PgCardForm, field: string) =>
  el.shadowRoot!.querySelector(`label[for="${field}"]`)!.textContent!.trim();

/** The form's modules the page has fetched so far, by path. */
const fetched = () => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);

describe('pg-card-form in a language loaded on demand', () => {
  it('loads Polish when asked, renders in it and counts in its plural forms', async () => {
    expect(fetched().some((p) => p.endsWith('/i18n/locales/pl.ts'))).to.equal(false);
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="pl"></pg-card-form>`);
    await until(() => label(el, 'number') === 'Numer karty');
    expect(fetched().some((p) => p.endsWith('/i18n/locales/pl.ts'))).to.equal(true);
    expect(buttonOf(el).textContent!.trim()).to.equal('Zapłać');
    await typeInto(el, 'number', VISA);
    buttonOf(el).click();
    await el.updateComplete;
    expect(statusOf(el)).to.equal('Popraw 2 pola.');
    await expect(el).to.be.accessible();
  });

  it('switches to a lazily loaded language when the lang attribute changes', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="en"></pg-card-form>`);
    expect(label(el, 'number')).to.equal('Card number');
    el.setAttribute('lang', 'de-AT');
    await until(() => label(el, 'number') === 'Kartennummer');
    expect(label(el, 'cvv')).to.equal('Sicherheitscode');
  });

  it('speaks Arabic, written right to left, from an ancestor', async () => {
    const wrapper = await fixture<HTMLElement>(
      html`<div lang="ar" dir="rtl"><pg-card-form></pg-card-form></div>`,
    );
    const el = wrapper.querySelector('pg-card-form')!;
    await until(() => label(el, 'number') === 'رقم البطاقة');
    expect(localeDirection('ar')).to.equal('rtl');
    expect(localeDirection('pl')).to.equal('ltr');
  });

  it('falls back to English for a language it does not ship', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="xx-YY"></pg-card-form>`);
    // What the form waits for before it renders in a language: nothing to load for this one.
    await loadMessages('xx-YY');
    await el.updateComplete;
    expect(label(el, 'number')).to.equal('Card number');
    expect(buttonOf(el).textContent!.trim()).to.equal('Pay');
  });

  it('takes a language the page registers, and re-renders forms already shown', async () => {
    const el = await fixture<PgCardForm>(html`<pg-card-form lang="lt"></pg-card-form>`);
    expect(label(el, 'number')).to.equal('Card number');
    registerMessages('lt', {cardNumber: 'Kortelės numeris', pay: 'Mokėti'});
    await until(() => label(el, 'number') === 'Kortelės numeris');
    expect(buttonOf(el).textContent!.trim()).to.equal('Mokėti');
    expect(label(el, 'cvv')).to.equal('Security code');
  });
});
