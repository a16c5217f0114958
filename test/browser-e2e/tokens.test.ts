/**
 * Token check (after Material Web's `testing/tokens.ts`): every `--pg-*` custom property an
 * element's styles use is documented with `@cssproperty` on that element, and every
 * documented one is used, so the theming contract in custom-elements.json is complete.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';

const used = (files: string[]) =>
  new Set(
    files.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/var\((--pg-[a-z-]+)/g)].map((m) => m[1]!),
    ),
  );
const documented = (file: string) =>
  new Set(
    [...readFileSync(file, 'utf8').matchAll(/@cssproperty (--pg-[a-z-]+)/g)].map((m) => m[1]!),
  );

const ELEMENTS: Record<string, [string, string[]]> = {
  'pg-card-form': [
    'src/card-form/card-form.ts',
    [
      'src/card-form/card-form.styles.ts',
      'src/internal/shared.styles.ts',
      'src/three-ds-redirect/three-ds-redirect.styles.ts',
      'src/three-ds-redirect/challenge-dialog.styles.ts',
    ],
  ],
  'pg-3ds-redirect': [
    'src/three-ds-redirect/three-ds-redirect.ts',
    [
      'src/three-ds-redirect/three-ds-redirect.styles.ts',
      'src/three-ds-redirect/challenge-dialog.styles.ts',
      'src/internal/shared.styles.ts',
    ],
  ],
};

describe('custom properties', () => {
  for (const [tag, [element, styles]] of Object.entries(ELEMENTS)) {
    it(`${tag} documents exactly the --pg-* properties its styles use`, () => {
      assert.deepEqual([...documented(element)].sort(), [...used(styles)].sort());
    });
  }
});
