/**
 * The page check of PCI DSS 11.6.1 as a function (`pg-checkout-verify-page` is its command
 * line, cli.ts): loads a merchant's payment page in headless Chromium (observe.ts), and
 * compares every script it ran and every pg-checkout file it read with the script
 * inventories (inventory.ts), and the Content-Security-Policy it was served with the
 * expected one, or, without one, with what a payment page's policy must hold (csp.ts).
 * Any difference is listed; none means the page is as authorised.
 */
import {parsePolicy, policyDifferences, weaknesses} from './csp.js';
import {compare, type InventoryEntry, type Verdict} from './inventory.js';
import {observePage} from './observe.js';

export interface PageCheckOptions {
  /** The entries of every inventory: pg-checkout's, and the merchant's own. */
  inventory: readonly InventoryEntry[];
  /** The policy the page must be served with, exactly (source order aside). */
  expectedCsp?: string;
  /** How long the page may take to load, in ms (default 30 s). */
  timeoutMs?: number;
}

export interface PageCheckResult {
  url: string;
  status: number;
  /** The security headers the page was served with. */
  headers: Record<string, string>;
  scripts: Verdict[];
  /** What is not as authorised: a script or file changed or unlisted, a header weakened. */
  differences: string[];
}

export async function verifyPage(url: string, options: PageCheckOptions): Promise<PageCheckResult> {
  const dataFiles = options.inventory.filter((e) => e.file && e.kind === 'data');
  const observed = await observePage(url, {
    timeoutMs: options.timeoutMs ?? 30_000,
    isData: (u) => dataFiles.some((e) => new URL(u).pathname.endsWith(`/${e.file}`)),
  });
  const scripts = compare(observed.loaded, options.inventory, new URL(observed.url));
  const differences: string[] = [];
  for (const v of scripts) {
    if (v.status === 'changed') {
      differences.push(
        `${v.url} is not the file of the inventory (${v.entry}): ${v.integrity}, expected ${v.expected}`,
      );
    } else if (v.status === 'unlisted') {
      differences.push(
        `${v.kind === 'script' ? 'script' : 'file'} ${v.url} (${v.integrity}) is in no inventory`,
      );
    }
  }
  if (observed.status >= 400) differences.push(`the page answered ${observed.status}`);
  const csp = observed.headers['content-security-policy'];
  if (!csp) {
    differences.push('no Content-Security-Policy header (a report-only one enforces nothing)');
  } else {
    const policy = parsePolicy(csp);
    if (options.expectedCsp !== undefined) {
      for (const d of policyDifferences(parsePolicy(options.expectedCsp), policy)) {
        differences.push(`Content-Security-Policy: ${d}`);
      }
    }
    for (const w of weaknesses(policy)) differences.push(`Content-Security-Policy: ${w}`);
  }
  for (const v of observed.violations) differences.push(`the page reported a CSP violation: ${v}`);
  return {
    url: observed.url,
    status: observed.status,
    headers: observed.headers,
    scripts,
    differences,
  };
}
