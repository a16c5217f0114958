/**
 * What `<pg-3ds-redirect>` needs to resume on the page the customer comes back to: the
 * pending order's reference, kept in `sessionStorage` (nothing else is kept), and a promise
 * that the page's own scripts have run before the outcome is emitted.
 */
import {PENDING_ORDER_KEY} from '../protocol/checkout.js';

/** The order kept before leaving for the challenge, if storage allows. */
export function readPendingOrder(): string | null {
  try {
    return sessionStorage.getItem(PENDING_ORDER_KEY);
  } catch {
    return null;
  }
}

/** Keeps `orderRef` for the return page (only the reference). */
export function writePendingOrder(orderRef: string): void {
  try {
    sessionStorage.setItem(PENDING_ORDER_KEY, orderRef);
  } catch {
    // Storage disabled: the return page still has the order in its query string.
  }
}

/**
 * Resolves once the document's deferred and module scripts have run (`DOMContentLoaded`).
 * Module scripts run one after the other once each has arrived, and the event loop keeps
 * turning in between: an outcome learned while a later page script is still downloading
 * would be emitted before that script could listen for it.
 */
export function pageScriptsRan(): Promise<void> {
  const nav = performance.getEntriesByType?.('navigation')[0] as
    PerformanceNavigationTiming | undefined;
  if (document.readyState === 'complete' || (nav?.domContentLoadedEventStart ?? 0) > 0) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = () => {
      document.removeEventListener('DOMContentLoaded', done);
      document.removeEventListener('readystatechange', onState);
      resolve();
    };
    // Also on `complete`, should DOMContentLoaded have gone by unseen.
    const onState = () => {
      if (document.readyState === 'complete') done();
    };
    document.addEventListener('DOMContentLoaded', done);
    document.addEventListener('readystatechange', onState);
  });
}
