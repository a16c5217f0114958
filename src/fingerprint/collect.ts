/**
 * Collects the part of the gateway's `browser_fingerprint` the browser can know, following
 * the EMV 3-D Secure browser-channel conventions: all values strings; the raw
 * `getTimezoneOffset()` (UTC−5 → `"300"`, never inverted); colour depth mapped down to an
 * allowed value (30 → `"24"`); Java reported as disabled; the language a well-formed BCP 47
 * tag (the browser's, else the page's `lang`, else `en`: an engine without a locale says
 * `C`), cut to 8 characters at a subtag boundary; screen size in whole pixels. The page's
 * `Accept` header is no browser fact a script can read: it is passed in when the page's
 * server wrote it into the page (`<pg-card-form accept-header>`). The merchant's server
 * adds the IP address from the real request, and a documented `Accept` default without
 * the page's (src/server/payments/gateway-request.ts), never the form's own fetch header.
 */
import type {ClientFingerprint} from '../protocol/checkout.js';

/** Colour depths EMV 3DS 2.1/2.2 allow. */
export const EMV_COLOR_DEPTHS = [1, 4, 8, 15, 16, 24, 32, 48] as const;
/** Longest `browserLanguage` EMV 3DS 2.2 allows. */
export const EMV_LANGUAGE_MAX = 8;

/** The raw browser facts the fingerprint is built from; each can be overridden (tests). */
export interface FingerprintSource {
  colorDepth: number;
  screenWidth: number;
  screenHeight: number;
  javaEnabled: boolean;
  language: string;
  /** `Date#getTimezoneOffset()`: minutes, positive west of UTC. */
  timeZoneOffset: number;
  /** IANA name, e.g. `Europe/Kyiv`. */
  timeZone: string;
  userAgent: string;
  /** The page's language (`<html lang>`), used when `language` is no BCP 47 tag. */
  pageLanguage: string;
  /**
   * The `Accept` header the browser sent for the page, as the page's server wrote it into
   * the page; none when it did not (the server then sends its documented default).
   */
  acceptHeader?: string;
}

/** Maps a colour depth to the nearest allowed value not above it (30 → 24). */
export function toEmvColorDepth(depth: number): string {
  if (!Number.isFinite(depth) || depth < 1) return '24';
  let best = 1;
  for (const allowed of EMV_COLOR_DEPTHS) if (allowed <= depth) best = allowed;
  return String(best);
}

/**
 * A well-formed BCP 47 tag of at most 8 characters from `tag` (`zh-Hant-TW` → `zh-Hant`,
 * `en_US` → `en-US`, `en-u-ca-gregory` → `en`): its language, script, region and variants
 * (`Intl.Locale#baseName`, canonical), whole subtags dropped from the end until it fits;
 * `undefined` when `tag` is none (`C`, `C.UTF-8`, `x-klingon`, ``).
 */
function emvTag(tag: string | undefined): string | undefined {
  try {
    // (No tag at all throws too.)
    const subtags = new Intl.Locale(tag!.trim().replace(/_/g, '-')).baseName.split('-');
    while (subtags.join('-').length > EMV_LANGUAGE_MAX) subtags.pop();
    return subtags.join('-');
  } catch {
    return undefined;
  }
}

/**
 * The browser's language as the gateway takes it: a well-formed BCP 47 tag of at most 8
 * characters, from `tag` (`navigator.language`), else from `fallback` (the page's `lang`),
 * else `en`.
 */
export function toEmvLanguage(tag: string, fallback?: string): string {
  return emvTag(tag) ?? emvTag(fallback) ?? 'en';
}

/** Screen size as 1–6 digits. */
function toEmvScreen(px: number): string {
  return String(Math.min(999_999, Math.max(1, Math.round(Number.isFinite(px) ? px : 1))));
}

/** Reads the current browser's facts. */
export function readFingerprintSource(): FingerprintSource {
  let timeZone = '';
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    // Intl without time-zone support: leave it empty.
  }
  return {
    colorDepth: screen.colorDepth,
    screenWidth: screen.width,
    screenHeight: screen.height,
    // Java applets are gone from every browser; javaEnabled() is kept for the record.
    javaEnabled: typeof navigator.javaEnabled === 'function' ? navigator.javaEnabled() : false,
    language: navigator.language,
    timeZoneOffset: new Date().getTimezoneOffset(),
    timeZone,
    userAgent: navigator.userAgent,
    pageLanguage: document.documentElement.lang,
  };
}

/**
 * Collects the browser's fingerprint for a direct payment request. Pass `overrides` only to
 * replace facts (in tests, say); normally call it with no argument.
 */
export function collectBrowserFingerprint(
  overrides?: Partial<FingerprintSource>,
): ClientFingerprint {
  const source = {...readFingerprintSource(), ...overrides};
  return {
    browserColorDepth: toEmvColorDepth(source.colorDepth),
    browserScreenHeight: toEmvScreen(source.screenHeight),
    browserScreenWidth: toEmvScreen(source.screenWidth),
    browserJavaEnabled: String(source.javaEnabled === true),
    browserLanguage: toEmvLanguage(source.language, source.pageLanguage),
    browserTimeZone: source.timeZone,
    browserTimeZoneOffset: String(Math.trunc(source.timeZoneOffset)),
    browserUserAgent: source.userAgent,
    ...(source.acceptHeader ? {browserAcceptHeader: source.acceptHeader} : {}),
  };
}
