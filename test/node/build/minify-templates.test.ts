/**
 * The CDN build's template minifier (scripts/vite/minify-templates.ts): what it removes
 * from `html` and `css` templates, and what it must never touch (bindings, other strings,
 * a space that changes a selector's meaning).
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  minifyCssText,
  minifyHtmlText,
  minifyTemplates,
} from '../../../scripts/vite/minify-templates.js';

describe('minifyTemplates', () => {
  test('drops the line breaks between tags and keeps one space inside text', () => {
    const source = 'const t = html`\n  <p>\n    Pay\n    now\n  </p>\n  <b>x</b>\n`;';
    assert.equal(minifyTemplates(source), 'const t = html`<p> Pay now </p><b>x</b>`;');
  });

  test('leaves the bindings alone; a line break next to one becomes a space', () => {
    const source = 'html`\n  <input .value=${a + `\n  x`} ?disabled=${b}>\n  ${c}\n`';
    assert.equal(
      minifyTemplates(source),
      'html`<input .value=${a + `\n  x`} ?disabled=${b}> ${c} `',
    );
  });

  test('touches neither untagged templates nor other tags', () => {
    const source = 'const a = `\n  <p>\n  </p>\n`; const b = sql`\n  select 1\n`;';
    assert.equal(minifyTemplates(source), source);
  });

  test('minifies css and svg templates', () => {
    const source =
      'css`\n  /* note */\n  :host {\n    color: red;\n  }\n` ; svg`\n  <g>\n  </g>\n`';
    assert.equal(minifyTemplates(source), 'css`:host{color:red}` ; svg`<g></g>`');
  });
});

describe('minifyCssText', () => {
  test('keeps the space before a colon, which is a descendant selector', () => {
    assert.equal(minifyCssText('a :hover { color : red ; }'), 'a :hover{color :red}');
  });
  test('drops the space around a child combinator and a leading zero, not a calc operator', () => {
    assert.equal(
      minifyCssText('.row > .field { margin: 0.5rem calc(10.25px + 0.5em) -0.5em; }'),
      '.row>.field{margin:.5rem calc(10.25px + .5em) -0.5em}',
    );
  });
});

describe('minifyHtmlText', () => {
  test('drops the quotes of a static one-word attribute, not before "/" nor around bindings', () => {
    assert.equal(
      minifyHtmlText('<b part="form" class="a b" id="x"/><i title="', true, false),
      '<b part=form class="a b" id="x"/><i title="',
    );
    assert.equal(minifyHtmlText('<button type="button">', true, true), '<button type=button>');
  });
  test('keeps a space between text and a tag, where it shows', () => {
    assert.equal(minifyHtmlText('Total:\n  <b>', true, false), 'Total: <b>');
  });
});
