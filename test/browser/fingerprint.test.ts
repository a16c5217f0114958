// collectBrowserFingerprint() and <pg-fingerprint>: EMV 3DS conventions for every value.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import {
  collectBrowserFingerprint,
  toEmvColorDepth,
  toEmvLanguage,
} from '../../src/fingerprint/collect.js';
import {PgFingerprint} from '../../src/fingerprint/fingerprint.js';
import {elementBaseTests} from './element-base-tests.js';

describe('collectBrowserFingerprint', () => {
  it('returns every field as a string, read from this browser', () => {
    const fp = collectBrowserFingerprint();
    expect(Object.keys(fp).sort()).to.deep.equal([
      'browserColorDepth',
      'browserJavaEnabled',
      'browserLanguage',
      'browserScreenHeight',
      'browserScreenWidth',
      'browserTimeZone',
      'browserTimeZoneOffset',
      'browserUserAgent',
    ]);
    for (const [k, v] of Object.entries(fp)) expect(typeof v, k).to.equal('string');
    expect(fp.browserScreenWidth).to.equal(String(screen.width));
    expect(fp.browserScreenHeight).to.equal(String(screen.height));
    expect(fp.browserTimeZoneOffset).to.equal(String(new Date().getTimezoneOffset()));
    expect(fp.browserTimeZone).to.equal(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(fp.browserJavaEnabled).to.equal('false');
    expect(fp.browserUserAgent).to.equal(navigator.userAgent);
    expect(fp.browserLanguage.length).to.be.at.most(8);
  });

  it('keeps the raw getTimezoneOffset sign: UTC−5 is "300", UTC+5 is "-300"', () => {
    expect(collectBrowserFingerprint({timeZoneOffset: 300}).browserTimeZoneOffset).to.equal('300');
    expect(collectBrowserFingerprint({timeZoneOffset: -300}).browserTimeZoneOffset).to.equal(
      '-300',
    );
    expect(
      collectBrowserFingerprint({timeZoneOffset: -180, timeZone: 'Europe/Kyiv'}).browserTimeZone,
    ).to.equal('Europe/Kyiv');
  });

  it('maps colour depth down to an EMV value', () => {
    expect(toEmvColorDepth(30)).to.equal('24');
    expect(toEmvColorDepth(24)).to.equal('24');
    expect(toEmvColorDepth(48)).to.equal('48');
    expect(toEmvColorDepth(64)).to.equal('48');
    expect(toEmvColorDepth(10)).to.equal('8');
    expect(toEmvColorDepth(2)).to.equal('1');
    expect(collectBrowserFingerprint({colorDepth: 30}).browserColorDepth).to.equal('24');
  });

  it('reports the Java flag as a string, false in a modern browser', () => {
    expect(collectBrowserFingerprint({javaEnabled: false}).browserJavaEnabled).to.equal('false');
    expect(collectBrowserFingerprint({javaEnabled: true}).browserJavaEnabled).to.equal('true');
  });

  it('cuts the language to 8 characters at a subtag boundary', () => {
    expect(toEmvLanguage('en-US')).to.equal('en-US');
    expect(toEmvLanguage('zh-Hant-TW')).to.equal('zh-Hant');
    expect(toEmvLanguage('de-DE-1996')).to.equal('de-DE');
    expect(toEmvLanguage('uk')).to.equal('uk');
    expect(toEmvLanguage('en-u-ca-gregory')).to.equal('en');
  });

  it('sends a well-formed BCP 47 tag: the browser’s, else the page’s lang, else en', () => {
    // An engine without a locale says `C`; a POSIX locale is not a tag either.
    for (const bad of ['C', 'C.UTF-8', 'x-klingon', '', '  ', 'en US'])
      expect(toEmvLanguage(bad, 'uk-UA'), bad).to.equal('uk-UA');
    expect(toEmvLanguage('C', '')).to.equal('en');
    expect(toEmvLanguage('C', 'not a tag')).to.equal('en');
    expect(toEmvLanguage('en_GB'), 'underscore').to.equal('en-GB');
    expect(toEmvLanguage('EN-gb'), 'canonical case').to.equal('en-GB');
    expect(collectBrowserFingerprint({language: 'C', pageLanguage: 'pl'}).browserLanguage).to.equal(
      'pl',
    );
    for (const tag of ['en-US', 'uk', 'zh-Hant', 'pt-BR', 'es-419'])
      expect(Intl.getCanonicalLocales(toEmvLanguage(tag))).to.deep.equal([tag]);
  });

  it('carries the page’s Accept header only when the page gave it', () => {
    expect(collectBrowserFingerprint()).to.not.have.property('browserAcceptHeader');
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(collectBrowserFingerprint({acceptHeader: accept}).browserAcceptHeader).to.equal(accept);
  });

  it('writes screen sizes as whole pixels with 1–6 digits', () => {
    const fp = collectBrowserFingerprint({screenWidth: 1440.4, screenHeight: 0});
    expect(fp.browserScreenWidth).to.equal('1440');
    expect(fp.browserScreenHeight).to.equal('1');
  });
});

describe('pg-fingerprint', () => {
  it('adds the fingerprint JSON to its form under its name', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><pg-fingerprint name="fp"></pg-fingerprint></form>`,
    );
    const el = form.querySelector<PgFingerprint>('pg-fingerprint')!;
    await el.updateComplete;
    const value = new FormData(form).get('fp');
    expect(typeof value).to.equal('string');
    expect(JSON.parse(value as string)).to.deep.equal(collectBrowserFingerprint());
    expect(el.form).to.equal(form);
    expect(getComputedStyle(el).display).to.equal('none');
  });
});

elementBaseTests<PgFingerprint>({
  tag: 'pg-fingerprint',
  element: PgFingerprint,
  create: async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><pg-fingerprint name="fp"></pg-fingerprint></form>`,
    );
    const el = form.querySelector<PgFingerprint>('pg-fingerprint')!;
    await el.updateComplete;
    return el;
  },
  properties: {name: 'other', lang: 'uk'},
  reflected: {name: {attribute: 'name', values: ['card_fp', 'fingerprint']}},
});
