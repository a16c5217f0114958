/**
 * The CDN file of server-rendered pages that leaves the first paint to the page:
 * `pg-checkout-hydrate-after-paint.js`, a few hundred bytes that load
 * `pg-checkout-hydrate.js` (beside it) once the page has painted (its first paint entry),
 * or at once when the customer touches the page first, or the tab is hidden (it paints
 * nothing then).
 *
 * A server-rendered form is typeable before any script runs (`pg-checkout/ssr`); the
 * hydrating file, loaded by a `<script>` of the page, would arrive meanwhile and take two
 * cores' worth of parsing (about 6 ms, traced) from the page's first style, layout and paint.
 * Loaded from here, it arrives just after them.
 *
 * The file it loads is checked against the hash it was built with (written here at build
 * time, scripts/vite/after-paint-loader.ts): it is loaded by a `<script type="module">`
 * with that `integrity`, which Chromium, Firefox and WebKit all refuse to run when the bytes
 * differ. So pinning this file with SRI pins both. (A `<link rel="modulepreload" integrity>`
 * followed by `import()` would need no script element, but WebKit does not check a
 * preload's `integrity`: WebKitGTK 2.50 ran a changed file preloaded with a wrong hash.)
 * A script's `src` is a Trusted Types sink: on a page that enforces Trusted Types, the URL
 * goes through a policy named `pg-checkout`, which passes that one URL and nothing else, so
 * the page's policy must allow it (`trusted-types lit-html pg-checkout`).
 *
 * Pay pressed while the file is on its way (a click, or Enter in a field) is kept: the form
 * pays once hydrated, on what was typed, and a second press before then adds nothing. The
 * server-rendered form cannot pay by itself, and a press lost unseen would leave the
 * customer waiting. (A page that loads `pg-checkout-hydrate.js` or `pg-checkout/hydrate`
 * itself has no script before it: there, Pay does nothing until the module has run.)
 *
 * When the file cannot be had (refused by its hash, missing, the network down), no form
 * of the page can pay, and none fails silently. Each `<pg-card-form>` dispatches
 * `pg-error` (`misconfigured`, not retryable), as the element does for a form that cannot
 * pay; its fields and Pay button are disabled and its status line says so to the customer,
 * in the language the server rendered it in (`renderCardForm` writes that text into the
 * element's `data-pg-unavailable`; English without it); and the companion's
 * `security-report` route beside its `endpoint` is sent a report in the Reporting API's
 * shape (`csp-violation`, directive `integrity`, the refused file as `blockedURL`), which
 * it stores and hands to `onSecurityReport` as it does the page's CSP violations: a
 * changed file on a CDN is what the merchant must hear of.
 *
 * It exports nothing: the elements' classes are exported by `pg-checkout-hydrate.js`.
 */

/** The SRI hash of pg-checkout-hydrate.js, written in by the build. */
declare const __PG_HYDRATE_INTEGRITY__: string;

/** What a touch of the page starts the load on, before the first paint has come. */
const FIRST_TOUCH = ['pointerdown', 'keydown', 'focusin'] as const;

/** The part of the Trusted Types API used here (TypeScript's DOM types have none yet). */
interface TrustedTypes {
  createPolicy(
    name: string,
    rules: {createScriptURL: (url: string) => string},
  ): {createScriptURL(url: string): string};
}

const url = new URL('./pg-checkout-hydrate.js', import.meta.url).href;
let started = false;

function load(): void {
  if (started) return;
  started = true;
  for (const type of FIRST_TOUCH) document.removeEventListener(type, load, true);
  let src: string;
  try {
    const trustedTypes = (globalThis as {trustedTypes?: TrustedTypes}).trustedTypes;
    src =
      trustedTypes
        ?.createPolicy('pg-checkout', {
          createScriptURL: (value) => {
            if (value !== url) throw new TypeError(`pg-checkout: ${value} is not ${url}`);
            return value;
          },
        })
        .createScriptURL(url) ?? url;
  } catch {
    // The page's CSP does not allow the policy (`trusted-types` without pg-checkout).
    notLoaded(`its CSP must allow the Trusted Types policy pg-checkout`);
    return;
  }
  const script = document.createElement('script');
  script.type = 'module';
  script.crossOrigin = 'anonymous';
  script.integrity = __PG_HYDRATE_INTEGRITY__;
  script.src = src;
  script.onerror = () => notLoaded('refused by its integrity hash, missing, or offline');
  document.head.append(script);
}

/** A server-rendered form: `hasUpdated` once its module has hydrated it. */
type ServerForm = Element & {
  hasUpdated?: boolean;
  updateComplete?: Promise<unknown>;
  submit?: () => unknown;
};

/** The forms whose Pay was pressed before they were hydrated (`keepPay`). */
const pressed = new WeakSet<Element>();

/**
 * Pay pressed (clicked, or Enter's click) on a form not hydrated yet: the form rendered on
 * the server cannot pay by itself (its `method="dialog"` goes nowhere), and a press lost
 * unseen would leave the customer waiting. Kept, and made once the form is hydrated (its
 * module's first render of it, which attaches its listeners).
 */
function keepPay(event: Event): void {
  const button = event.composedPath().find((t) => t instanceof HTMLButtonElement);
  const root = button?.getRootNode();
  const form: ServerForm | undefined = root instanceof ShadowRoot ? root.host : undefined;
  if (
    button?.type !== 'submit' ||
    form?.localName !== 'pg-card-form' ||
    form.hasUpdated ||
    pressed.has(form)
  )
    return;
  pressed.add(form);
  void customElements
    .whenDefined('pg-card-form')
    .then(() => form.updateComplete)
    .then(() => form.submit?.());
}

document.addEventListener('click', keepPay, true);

/** What a form says without the text its server rendered in (`data-pg-unavailable`). */
const UNAVAILABLE =
  'Card payment is not available right now. Nothing was charged. Reload the page or try again later.';

/**
 * The module that would make the forms pay did not load. Each card form says `pg-error`
 * (the shape of the elements' `PgErrorDetail`, bubbling and composed as theirs), turns
 * off its fields and Pay button, and shows the customer why in its status line (styled as
 * the element's errors); each companion the forms pay through is told once.
 */
function notLoaded(why: string): void {
  const reported = new Set<string>();
  for (const form of document.querySelectorAll('pg-card-form')) {
    const event = new Event('pg-error', {bubbles: true, composed: true});
    const orderRef = form.getAttribute('order-ref');
    Object.defineProperty(event, 'detail', {
      value: {
        ...(orderRef ? {orderRef} : {}),
        code: 'misconfigured',
        message: `pg-checkout: ${url} could not be loaded: ${why}`,
        retryable: false,
      },
    });
    form.dispatchEvent(event);
    const root = form.shadowRoot;
    const fieldset = root?.querySelector('fieldset');
    if (fieldset) fieldset.disabled = true;
    const status = root?.querySelector('[part~="status"]');
    if (status) {
      status.className = 'status status--error';
      status.textContent = form.getAttribute('data-pg-unavailable') || UNAVAILABLE;
    }
    // The companion's report route beside its pay route, as the elements' `siblingRoute`.
    const report = form.getAttribute('endpoint')?.replace(/(\/pay|\/)?$/, '/security-report');
    if (report && !reported.has(report)) {
      reported.add(report);
      void fetch(report, {
        method: 'POST',
        headers: {'Content-Type': 'application/reports+json'},
        body: JSON.stringify([
          {
            type: 'csp-violation',
            body: {
              documentURL: location.href,
              blockedURL: url,
              effectiveDirective: 'integrity',
              sourceFile: import.meta.url,
            },
          },
        ]),
      }).catch(() => {});
    }
  }
}

/**
 * Calls `then` once the page has painted: on its first paint entry (the frame shown, not
 * only rendered), else, where the browser reports none, after its first frame.
 */
function afterFirstPaint(then: () => void): void {
  if (PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    const observer = new PerformanceObserver(() => {
      observer.disconnect();
      then();
    });
    observer.observe({type: 'paint', buffered: true});
  } else {
    // The callback runs before the first frame is rendered; the timer after it.
    requestAnimationFrame(() => setTimeout(then));
  }
}

if (document.visibilityState === 'hidden') {
  load();
} else {
  for (const type of FIRST_TOUCH) document.addEventListener(type, load, true);
  afterFirstPaint(load);
}
