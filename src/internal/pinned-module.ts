/**
 * Code the CDN bundle (`pg-checkout.js`) loads later, pinned: a module beside the bundle,
 * loaded by a `<script type="module">` with the `integrity` the build wrote into the bundle
 * (scripts/vite/pinned-modules.ts), which Chromium, Firefox and WebKit all refuse to run
 * when the bytes differ. So the one hash on the page's `<script>` tag covers it too. Not
 * `import()`, which no engine checks against a hash, nor a `modulepreload`, whose
 * `integrity` WebKit ignores (docs/guides/csp-and-sri.md).
 *
 * A module run by a `<script>` hands its exports to no one: the build ends the file with a
 * `pg-checkout-module` event on `document` carrying them and the module's own URL, which
 * the load below waits for.
 *
 * A script's `src` is a Trusted Types sink: on a page that enforces Trusted Types, the URL
 * goes through the policy `pg-checkout` (as the after-paint loader's does), created on the
 * first load only, which passes the URLs of this bundle's pinned modules and nothing else.
 * The page's policy must allow it (`trusted-types lit-html pg-checkout`); where it does not,
 * the load fails and says so, as a refused file does.
 */

/** What the build writes into the bundle for one module: its file beside the bundle, its hash. */
export interface ModulePin {
  file: string;
  integrity: string;
}

/** The part of the Trusted Types API used here (TypeScript's DOM types have none yet). */
interface TrustedTypes {
  createPolicy(
    name: string,
    rules: {createScriptURL: (url: string) => string},
  ): {createScriptURL(url: string): string};
}

/** The URLs the policy passes: those of the modules this bundle asked for. */
const allowed = new Set<string>();
let policy: ReturnType<TrustedTypes['createPolicy']> | undefined;

/** The script URL of `url`: through the policy `pg-checkout` where Trusted Types exist. */
function scriptUrl(url: string): string {
  allowed.add(url);
  const trustedTypes = (globalThis as {trustedTypes?: TrustedTypes}).trustedTypes;
  if (!trustedTypes) return url;
  policy ??= trustedTypes.createPolicy('pg-checkout', {
    createScriptURL: (value) => {
      if (!allowed.has(value)) throw new TypeError(`pg-checkout: ${value} is not pinned`);
      return value;
    },
  });
  return policy.createScriptURL(url);
}

/**
 * Runs the module `pin` names, once the browser has checked it against its hash; resolves
 * with its exports, rejects when it cannot be had (refused by its hash, missing, offline, or
 * the page's policy refuses `pg-checkout`).
 */
export function loadPinnedModule<T>(pin: ModulePin): Promise<T> {
  const url = new URL(pin.file, import.meta.url).href;
  return new Promise<T>((resolve, reject) => {
    const fail = (why: string) =>
      reject(new Error(`pg-checkout: ${url} could not be loaded (${why})`));
    let src: string;
    try {
      src = scriptUrl(url);
    } catch {
      fail('its CSP must allow the Trusted Types policy pg-checkout');
      return;
    }
    const ran = (event: Event) => {
      const detail = (event as CustomEvent<{url: string; module: T}>).detail;
      if (detail?.url === url) resolve(detail.module);
    };
    document.addEventListener('pg-checkout-module', ran);
    const script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = 'anonymous';
    script.integrity = pin.integrity;
    script.src = src;
    // `load` comes after the module has run: by then it has answered, or it never will.
    const done = (why: string) => () => {
      document.removeEventListener('pg-checkout-module', ran);
      script.remove();
      fail(why);
    };
    script.onload = done('it did not answer');
    script.onerror = done('refused by its integrity hash, missing, or offline');
    document.head.append(script);
  });
}
