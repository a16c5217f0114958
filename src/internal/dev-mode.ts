/**
 * Development mode of the browser elements: checks and one-time warnings meant for the
 * developer, never for the customer. Production is the default and the merchant defines
 * nothing: package.json's `exports` send the `development` condition (Vite's dev server,
 * webpack in development mode, esbuild with `conditions: ['development']`) to
 * dist/browser/development, built with `DEV_MODE` true, and everything else to
 * dist/browser and the CDN bundle, built with it false, where every check and warning
 * below is dead code and is dropped. The build settles it by replacing `__PG_DEV__`
 * (vite.config.ts, every browser target); the unbuilt sources, as the tests run
 * them, are in development mode.
 */
declare const __PG_DEV__: boolean | undefined;

/** True when development-only checks and warnings run (the `development` build). */
export const DEV_MODE: boolean = typeof __PG_DEV__ === 'boolean' ? __PG_DEV__ : true;

const issued = new Set<string>();

/** Prints a development warning once per `key`. Never pass card data in `message`. */
export function issueWarning(key: string, message: string): void {
  if (!DEV_MODE || issued.has(key)) return;
  issued.add(key);
  console.warn(`[pg-checkout] ${message}`);
}
