/**
 * Runs last (scripts/run-e2e.mjs puts it there): after every other end-to-end test paid
 * with the test cards, no line the demo server printed and no row of any table of its
 * SQLite file holds a card number or a security code that was used. The one exception is
 * the start-up banner, which lists the sandbox's public test cards on purpose.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {TEST_CARDS} from '../../sandbox/index.js';
import {CARDS, DATA_DIR, LOG_FILE} from './harness.js';

const numbers = [...new Set([...Object.values(CARDS).map((c) => c.number)])];
const cvvs = [...new Set(Object.values(CARDS).map((c) => c.cvv))];

/** A card number: its digits, also grouped by four with spaces or dashes. */
const numberPatterns = numbers.flatMap((n) => [
  new RegExp(`(?<!\\d)${n}(?!\\d)`),
  new RegExp(n.replace(/(\d{4})(?=\d)/g, '$1[ -]')),
]);
/**
 * A security code as a value: quoted, after `=`, or after a space — so a JSON number such
 * as `"ms":593` (a duration) is not mistaken for one.
 */
const cvvPatterns = cvvs.map((c) => new RegExp(`(?:["'=\\s])${c}(?![0-9A-Za-z.])`));

/**
 * The start-up banner (from `Demo shop:` to the last "what to try" line), which prints the
 * sandbox's public test cards on purpose. It must list exactly those cards.
 */
function withoutBanner(lines: string[]): string[] {
  const start = lines.findIndex((l) => l.startsWith('Demo shop: '));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('  7. '));
  assert.ok(start >= 0 && end > start, 'the banner was printed');
  const banner = lines.slice(start, end + 1).join('\n');
  for (const card of TEST_CARDS) {
    assert.ok(banner.includes(card.number.replace(/(\d{4})(?=\d)/g, '$1 ')), card.number);
  }
  return [...lines.slice(0, start), ...lines.slice(end + 1)];
}

test('no server log line holds a card number or security code used in the suite', () => {
  const lines = withoutBanner(readFileSync(LOG_FILE, 'utf8').split('\n'));
  assert.ok(lines.length > 10, `the server log was captured (${lines.length} lines)`);
  let checked = 0;
  for (const line of lines) {
    checked++;
    for (const p of [...numberPatterns, ...cvvPatterns]) {
      assert.doesNotMatch(line, p, `log line: ${line.slice(0, 300)}`);
    }
  }
  assert.ok(checked > 10);
});

test('no database row holds a card number or security code used in the suite', () => {
  const db = new Database(path.join(DATA_DIR, 'payments.db'), {readonly: true});
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    let rows = 0;
    for (const {name} of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) {
        rows++;
        const texts = [JSON.stringify(row)];
        // Webhook data is stored as received (Base64Url JSON): search it decoded too.
        for (const value of Object.values(row)) {
          if (typeof value === 'string' && /^[A-Za-z0-9_-]{40,}={0,2}$/.test(value)) {
            texts.push(Buffer.from(value, 'base64url').toString('utf8'));
          }
        }
        for (const text of texts) {
          for (const p of [...numberPatterns, ...cvvPatterns]) {
            assert.doesNotMatch(text, p, `${name} row: ${text.slice(0, 300)}`);
          }
        }
      }
    }
    assert.ok(rows > 5, `every table was read (${rows} rows)`);
  } finally {
    db.close();
  }
});
