/**
 * Collects the part of the gateway's `browser_fingerprint` the browser can know, following
 * the EMV 3-D Secure browser-channel conventions: all values strings; the raw
 * `getTimezoneOffset()` (UTC−5 → `"300"`, never inverted); colour depth mapped down to an
 * allowed value (30 → `"24"`); Java reported as disabled; language cut to 8 characters at
 * a subtag boundary; screen size in whole pixels. The merchant's server adds the accept
 * header and IP address from the real request.
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
}

/** Maps a colour depth to the nearest allowed value not above it (30 → 24). */
export function toEmvColorDepth(depth: number): string {
  if (!Number.isFinite(depth) || depth < 1) return '24';
  let best = 1;
  for (const allowed of EMV_COLOR_DEPTHS) if (allowed <= depth) best = allowed;
  return String(best);
}

/** Cuts a BCP 47 tag to at most 8 characters by dropping whole subtags (`zh-Hant-TW` → `zh-Hant`). */
export function toEmvLanguage(tag: string): string {
  const parts = tag.trim().split(/[-_]/).filter(Boolean);
  while (parts.length > 1 && parts.join('-').length > EMV_LANGUAGE_MAX) parts.pop();
  const joined = parts.join('-');
  return joined.slice(0, EMV_LANGUAGE_MAX) || 'en';
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
    language: navigator.language || 'en',
    timeZoneOffset: new Date().getTimezoneOffset(),
    timeZone,
    userAgent: navigator.userAgent,
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
    browserLanguage: toEmvLanguage(source.language),
    browserTimeZone: source.timeZone,
    browserTimeZoneOffset: String(Math.trunc(source.timeZoneOffset)),
    browserUserAgent: source.userAgent,
  };
}
