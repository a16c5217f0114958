/**
 * Filling the checkout's message templates in a locale, through the browser's `Intl`:
 * placeholders (`{n}`, `{amount}`), plural forms (an ICU `plural` argument, chosen by
 * `Intl.PluralRules`), numbers and money amounts (`Intl.NumberFormat`, from the exact
 * decimal string, never a float), and the writing direction of a locale.
 *
 * Templates: `{name}` is replaced by a value; `{name, plural, one {# field} other {# fields}}`
 * picks the branch for the value's plural category in the locale (`=0`-style exact branches
 * first, then the category, then `other`) and puts the formatted number where `#` stands.
 * A branch holds text and `#` only (no nested `{...}`): the subset of ICU MessageFormat
 * the checkout's texts need, small enough for the CDN budget.
 */

/** Values a template is filled with: a number is `{n}`. */
export type MessageValues = number | Readonly<Record<string, number | string>>;

/** A tag `Intl` accepts: `locale` itself if well-formed, else English. */
export function safeLocale(locale: string | undefined): string {
  if (!locale) return 'en';
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/** `{name, plural, one {…} other {…}}`: the argument's name, then its branches. */
const PLURAL = /\{(\w+),\s*plural\s*,((?:\s*=?\w+\s*\{[^{}]*\})+)\s*\}/g;
/** One branch of a plural argument: its selector (`one`, `=0`) and its text. */
const BRANCH = /(=?\w+)\s*\{([^{}]*)\}/g;
/** `{name}`. */
const PLAIN = /\{(\w+)\}/g;

/** Fills `message` with `values` (a number is `{n}`) in `locale` (English by default). */
export function fill(message: string, values: MessageValues, locale?: string): string {
  const args: Readonly<Record<string, number | string>> =
    typeof values === 'number' ? {n: values} : values;
  const tag = safeLocale(locale);
  return message
    .replace(PLURAL, (whole, name: string, body: string) => {
      if (args[name] === undefined) return whole;
      const n = Number(args[name]);
      const branches = new Map([...body.matchAll(BRANCH)].map((m) => [m[1], m[2]]));
      const branch =
        branches.get(`=${n}`) ??
        branches.get(new Intl.PluralRules(tag).select(n)) ??
        branches.get('other') ??
        '';
      return branch.replaceAll('#', formatCount(n, tag));
    })
    .replace(PLAIN, (whole, name: string) => {
      const value = args[name];
      if (value === undefined) return whole;
      return typeof value === 'number' ? formatCount(value, tag) : value;
    });
}

/** The names of a template's arguments (`{n}`, `{n, plural, ...}`, `{amount}`), sorted. */
export function placeholdersOf(message: string): string[] {
  const names = new Set<string>();
  const rest = message.replace(PLURAL, (_, name: string, body: string) => {
    names.add(name);
    return [...body.matchAll(BRANCH)].map((m) => m[2]).join(' ');
  });
  for (const m of rest.matchAll(PLAIN)) names.add(m[1]!);
  return [...names].sort();
}

/** The selectors of each plural argument in a template (`[['one', 'other']]`). */
export function pluralSelectorsOf(message: string): string[][] {
  return [...message.matchAll(PLURAL)].map((m) => [...m[2]!.matchAll(BRANCH)].map((b) => b[1]!));
}

/** A count in the locale's digits and grouping. */
export function formatCount(n: number, locale: string): string {
  return new Intl.NumberFormat(safeLocale(locale)).format(n);
}

/**
 * Counts as alternatives in the locale (`16, 18 or 19`; `16 або 19`), or as a range when they
 * run on (`14–19`), each count in the locale's digits.
 */
export function formatCountsOr(counts: readonly number[], locale: string): string {
  const tag = safeLocale(locale);
  const first = counts[0]!;
  const last = counts[counts.length - 1]!;
  return counts.length > 2 && last - first === counts.length - 1
    ? `${formatCount(first, tag)}–${formatCount(last, tag)}`
    : new Intl.ListFormat(tag, {type: 'disjunction'}).format(
        counts.map((n) => formatCount(n, tag)),
      );
}

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A money amount for the customer (`formatAmount('1234.50', 'UAH', 'uk')` → `1 234,50 ₴`),
 * from its exact decimal string: `Intl.NumberFormat` reads a string as the decimal it
 * writes, so no float rounding creeps in. At least the currency's own minor digits are
 * shown (`12.5` → `12.50`), and every digit given (`0.125 UAH` stays `0.125`): an amount is
 * never rounded for display. Throws a RangeError for anything but a plain decimal.
 */
export function formatAmount(amount: string, currency: string, locale?: string): string {
  if (!DECIMAL.test(amount)) throw new RangeError(`not a decimal amount: ${amount}`);
  const tag = safeLocale(locale);
  const given = amount.split('.')[1]?.length ?? 0;
  const minor = new Intl.NumberFormat(tag, {style: 'currency', currency}).resolvedOptions()
    .maximumFractionDigits;
  const digits = Math.max(given, minor ?? 2);
  // A string argument is an exact decimal (ECMA-402 `Intl.NumberFormat` v3).
  const exact = amount as Intl.StringNumericLiteral;
  return new Intl.NumberFormat(tag, {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(exact);
}

/** Scripts written right to left (ISO 15924), as `Intl.Locale#maximize` names them. */
const RTL_SCRIPTS = new Set(['Arab', 'Hebr', 'Thaa', 'Syrc', 'Nkoo', 'Adlm', 'Rohg', 'Mand']);

/** `rtl` for a right-to-left locale (`ar`, `he-IL`, `ur`, `az-Arab`), else `ltr`. */
export function localeDirection(locale: string): 'ltr' | 'rtl' {
  try {
    const script = new Intl.Locale(safeLocale(locale)).maximize().script;
    return script && RTL_SCRIPTS.has(script) ? 'rtl' : 'ltr';
  } catch {
    return 'ltr';
  }
}
