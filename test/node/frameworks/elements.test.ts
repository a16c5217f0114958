/**
 * src/jsx/elements.ts describes each element for the frameworks — which properties it has,
 * the attribute each reads, the events it dispatches — and everything framework-facing is
 * derived from it (the React components, the JSX typings). These tests hold it to the
 * elements themselves: their Lit property declarations (imported in Node, where Lit runs
 * on its DOM shim) and the `@event` tags of their JSDoc, which custom-elements.json is
 * generated from.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {PropertyDeclaration} from 'lit';
import {
  CARD_FORM_EVENTS,
  CARD_FORM_PROPERTIES,
  FINGERPRINT_EVENTS,
  FINGERPRINT_PROPERTIES,
  THREE_DS_REDIRECT_EVENTS,
  THREE_DS_REDIRECT_PROPERTIES,
} from '../../../src/jsx/elements.js';
import {ROOT} from './merchant.js';

/** Public reactive properties of an element class → the attribute each reads, or null. */
async function declared(module: string, name: string): Promise<Record<string, string | null>> {
  const element = (await import(`../../../src/${module}.js`))[name] as {
    elementProperties: Map<string, PropertyDeclaration & {state?: boolean}>;
  };
  const table: Record<string, string | null> = {};
  for (const [property, options] of element.elementProperties) {
    if (options.state) continue;
    table[property] =
      options.attribute === false
        ? null
        : typeof options.attribute === 'string'
          ? options.attribute
          : property.toLowerCase();
  }
  return table;
}

/** The event names of `@event {Class} name` tags in an element's JSDoc. */
function jsdocEvents(module: string): string[] {
  const source = readFileSync(path.join(ROOT, `src/${module}.ts`), 'utf8');
  return [...source.matchAll(/@event \{\w+\} ([\w-]+)/g)].map((m) => m[1]!);
}

const sorted = (list: readonly string[]) => [...new Set(list)].sort();

describe('the element descriptions the framework support is made of', () => {
  test('list every public property of each element, with the attribute it reads', async () => {
    assert.deepEqual(await declared('card-form/card-form', 'PgCardForm'), CARD_FORM_PROPERTIES);
    assert.deepEqual(
      await declared('three-ds-redirect/three-ds-redirect', 'PgThreeDSRedirect'),
      THREE_DS_REDIRECT_PROPERTIES,
    );
    assert.deepEqual(
      await declared('fingerprint/fingerprint', 'PgFingerprint'),
      FINGERPRINT_PROPERTIES,
    );
  });

  test('list every event each element declares', () => {
    const redirect = jsdocEvents('three-ds-redirect/three-ds-redirect');
    assert.deepEqual(sorted(THREE_DS_REDIRECT_EVENTS), sorted(redirect));
    // The card form's own, and those of the <pg-3ds-redirect> in its shadow root: every
    // pg- event bubbles and is composed, so they reach the card form's listeners too.
    assert.deepEqual(
      sorted(CARD_FORM_EVENTS),
      sorted([...jsdocEvents('card-form/card-form'), ...redirect]),
    );
    assert.deepEqual(sorted(FINGERPRINT_EVENTS), sorted(jsdocEvents('fingerprint/fingerprint')));
  });
});
