/**
 * Reading a Content-Security-Policy header the way the page check needs it
 * (`pg-checkout-verify-page`, PCI DSS 11.6.1): its directives and their sources, the
 * differences from the policy the merchant expects, and — whether or not one is expected —
 * the weaknesses that would let a script the inventory does not list run on the payment
 * page (`'unsafe-inline'`, `'unsafe-eval'`, a scheme or `*` in `script-src`, no Trusted
 * Types, no `object-src`/`base-uri` restriction, no report endpoint).
 */

/** A policy's directives, by lower-case name, each with its sources (a directive once). */
export type Policy = ReadonlyMap<string, readonly string[]>;

/** Parses one policy (`a x y; b z`); a later repeat of a directive is ignored, as browsers do. */
export function parsePolicy(text: string): Policy {
  const policy = new Map<string, string[]>();
  for (const part of text.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    const key = name.toLowerCase();
    if (!policy.has(key)) policy.set(key, sources);
  }
  return policy;
}

/** The sources that decide whether a script may run: `script-src-elem`'s, else `script-src`'s, else `default-src`'s. */
function scriptSources(policy: Policy): readonly string[] | undefined {
  return policy.get('script-src-elem') ?? policy.get('script-src') ?? policy.get('default-src');
}

/** Why `policy` would let an unlisted script run, or leave a change unseen; empty when none. */
export function weaknesses(policy: Policy): string[] {
  const found: string[] = [];
  const scripts = scriptSources(policy);
  if (!scripts) found.push('no script-src (nor default-src): any script may run');
  for (const source of scripts ?? []) {
    const s = source.toLowerCase();
    if (s === "'unsafe-inline'") found.push("script-src allows 'unsafe-inline'");
    if (s === "'unsafe-eval'") found.push("script-src allows 'unsafe-eval'");
    if (s === '*' || /^[a-z][a-z0-9+.-]*:$/.test(s)) {
      found.push(`script-src allows any source of ${s === '*' ? 'any scheme' : s}`);
    }
  }
  if (!(policy.get('require-trusted-types-for') ?? []).includes("'script'")) {
    found.push("no require-trusted-types-for 'script'");
  }
  const trusted = policy.get('trusted-types');
  if (!trusted || trusted.includes('*')) found.push('trusted-types does not name its policies');
  const objects = policy.get('object-src') ?? policy.get('default-src');
  if (!(objects?.length === 1 && objects[0] === "'none'")) found.push("object-src is not 'none'");
  if (!policy.has('base-uri')) found.push('no base-uri');
  if (!policy.has('report-to') && !policy.has('report-uri')) {
    found.push('no report-to (nor report-uri): violations reach nobody');
  }
  return found;
}

/** How `actual` differs from `expected`, directive by directive (source order aside). */
export function policyDifferences(expected: Policy, actual: Policy): string[] {
  const found: string[] = [];
  for (const [name, sources] of expected) {
    const got = actual.get(name);
    if (!got) {
      found.push(`${name} is missing (expected: ${sources.join(' ')})`);
      continue;
    }
    const want = new Set(sources);
    const have = new Set(got);
    const added = [...have].filter((s) => !want.has(s));
    const removed = [...want].filter((s) => !have.has(s));
    if (added.length || removed.length) {
      const what = [
        ...(added.length ? [`adds ${added.join(' ')}`] : []),
        ...(removed.length ? [`lacks ${removed.join(' ')}`] : []),
      ];
      found.push(`${name} ${what.join(', ')}`);
    }
  }
  for (const name of actual.keys()) {
    if (!expected.has(name)) found.push(`${name} is not expected (${actual.get(name)!.join(' ')})`);
  }
  return found;
}
