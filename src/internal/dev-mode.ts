/**
 * Development-mode switch and one-time warnings for the browser elements. The CDN build
 * replaces `__PG_DEV__` with `false`, so every warning below is dropped from it; unbundled
 * (npm) code warns unless a bundler defines `__PG_DEV__` as `false` too.
 */
declare const __PG_DEV__: boolean | undefined;

/** True when development-only checks and warnings run. */
export const DEV_MODE: boolean = typeof __PG_DEV__ === 'boolean' ? __PG_DEV__ : true;

const issued = new Set<string>();

/** Prints a development warning once per `key`. Never pass card data in `message`. */
export function issueWarning(key: string, message: string): void {
  if (!DEV_MODE || issued.has(key)) return;
  issued.add(key);
  console.warn(`[pg-checkout] ${message}`);
}
