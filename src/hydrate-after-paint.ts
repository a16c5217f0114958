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
 * time, scripts/vite/after-paint-loader.ts): a `<link rel="modulepreload">` with that
 * `integrity`, then `import()` of the same URL, which takes the checked module from the
 * module map. A changed file is refused and never runs. So pinning this file with SRI pins
 * both. No Trusted Types sink is used (`link.href` is none, unlike `script.src`), so a
 * policy allowing only `lit-html` still holds. A browser without `modulepreload` gets a
 * `<script type="module">` with the same `integrity` instead.
 *
 * When the file cannot be had (refused by its hash, missing, the network down), the forms
 * stay as the server sent them, typeable and paying nothing, and each `<pg-card-form>`
 * dispatches `pg-error` (`misconfigured`, not retryable), as the element does for a form
 * that cannot pay, so the page can tell the customer.
 *
 * It exports nothing: the elements' classes are exported by `pg-checkout-hydrate.js`.
 */

/** The SRI hash of pg-checkout-hydrate.js, written in by the build. */
declare const __PG_HYDRATE_INTEGRITY__: string;

/** What a touch of the page starts the load on, before the first paint has come. */
const FIRST_TOUCH = ['pointerdown', 'keydown', 'focusin'] as const;

const url = new URL('./pg-checkout-hydrate.js', import.meta.url).href;
let started = false;

function load(): void {
  if (started) return;
  started = true;
  for (const type of FIRST_TOUCH) document.removeEventListener(type, load, true);
  const link = document.createElement('link');
  if (link.relList.supports('modulepreload')) {
    link.rel = 'modulepreload';
    link.href = url;
    link.integrity = __PG_HYDRATE_INTEGRITY__;
    const checked = new Promise((resolve, reject) => {
      link.onload = resolve;
      link.onerror = () =>
        reject(new Error(`pg-checkout: ${url} was refused (integrity or network)`));
    });
    document.head.append(link);
    void checked.then(
      () => import(url),
      (error: Error) => {
        notLoaded();
        throw error;
      },
    );
  } else {
    const script = document.createElement('script');
    script.type = 'module';
    script.integrity = __PG_HYDRATE_INTEGRITY__;
    script.src = url;
    script.onerror = notLoaded;
    document.head.append(script);
  }
}

/**
 * `pg-error` on every card form of the page (the shape of the elements' `PgErrorDetail`),
 * bubbling and composed as theirs do: the module that would make them pay did not load.
 */
function notLoaded(): void {
  for (const form of document.querySelectorAll('pg-card-form')) {
    const event = new Event('pg-error', {bubbles: true, composed: true});
    const orderRef = form.getAttribute('order-ref');
    Object.defineProperty(event, 'detail', {
      value: {
        ...(orderRef ? {orderRef} : {}),
        code: 'misconfigured',
        message: `${url} could not be loaded`,
        retryable: false,
      },
    });
    form.dispatchEvent(event);
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
