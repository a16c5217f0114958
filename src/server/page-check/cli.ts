#!/usr/bin/env node
/**
 * `pg-checkout-verify-page <url>`: the PCI DSS 11.6.1 check of a payment page, for a
 * scheduled job (at least weekly) or a deploy's last step. It loads the page in headless
 * Chromium, prints the security headers it was served with and every script it ran (and
 * every pg-checkout file it read), each against the script inventory, and exits 1 on any
 * difference, 0 when there is none, 2 when the page could not be checked.
 *
 *   --inventory <file>   an inventory (repeatable): pg-checkout's, kept with your PCI
 *                        evidence (default: the installed package's
 *                        dist/cdn/pg-checkout.inventory.json), and your own scripts'
 *   --csp <policy>       the Content-Security-Policy the page must have, exactly
 *   --csp-file <file>    the same, read from a file
 *   --timeout <ms>       how long the page may take to load (default 30000)
 *   --json               the result as JSON
 */
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {parseArgs} from 'node:util';
import {parseInventory, type InventoryEntry} from './inventory.js';
import {PageCheckError} from './observe.js';
import {verifyPage, type PageCheckResult} from './verify-page.js';

const USAGE =
  'usage: pg-checkout-verify-page <url> [--inventory <file>]... [--csp <policy> | --csp-file <file>] [--timeout <ms>] [--json]';

/** The installed package's own inventory, beside the CDN files it describes. */
const OWN_INVENTORY = fileURLToPath(
  new URL('../../cdn/pg-checkout.inventory.json', import.meta.url),
);

function report(result: PageCheckResult): string {
  const lines = [`${result.url} (${result.status})`, '', 'Security headers received:'];
  for (const [name, value] of Object.entries(result.headers)) lines.push(`  ${name}: ${value}`);
  if (!Object.keys(result.headers).length) lines.push('  (none)');
  lines.push('', 'Scripts and files:');
  for (const v of result.scripts) {
    const mark = {listed: 'ok      ', changed: 'CHANGED ', unlisted: 'UNLISTED'}[v.status];
    lines.push(
      `  ${mark} ${v.kind.padEnd(6)} ${v.url}  ${v.integrity}${v.entry ? `  (${v.entry})` : ''}`,
    );
  }
  lines.push('');
  if (result.differences.length === 0)
    lines.push('No difference from the inventory and the policy.');
  else {
    lines.push(`${result.differences.length} difference(s):`);
    for (const d of result.differences) lines.push(`  - ${d}`);
  }
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const {values, positionals} = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      inventory: {type: 'string', multiple: true},
      csp: {type: 'string'},
      'csp-file': {type: 'string'},
      timeout: {type: 'string'},
      json: {type: 'boolean'},
      help: {type: 'boolean'},
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [url, ...rest] = positionals;
  if (!url || rest.length || !/^https?:\/\//.test(url)) throw new PageCheckError(USAGE);
  if (values.csp !== undefined && values['csp-file'] !== undefined) {
    throw new PageCheckError('give --csp or --csp-file, not both');
  }
  const timeoutMs = values.timeout === undefined ? 30_000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new PageCheckError('--timeout: a whole number of milliseconds');
  }
  const inventory: InventoryEntry[] = [];
  for (const file of values.inventory ?? [OWN_INVENTORY]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new PageCheckError(`--inventory ${file}: cannot be read`);
    }
    inventory.push(...parseInventory(text, file));
  }
  const expectedCsp =
    values['csp-file'] !== undefined ? readFileSync(values['csp-file'], 'utf8').trim() : values.csp;
  const result = await verifyPage(url, {
    inventory,
    timeoutMs,
    ...(expectedCsp !== undefined ? {expectedCsp} : {}),
  });
  process.stdout.write(`${values.json ? JSON.stringify(result, null, 2) : report(result)}\n`);
  return result.differences.length ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: Error) => {
    console.error(
      `pg-checkout-verify-page: ${error instanceof PageCheckError || error.name === 'TypeError' ? error.message : (error.stack ?? error.message)}`,
    );
    process.exitCode = 2;
  },
);
