/**
 * The result page: `<pg-3ds-redirect resolve>` asks the server for the order's final
 * status (never trusting the address); this script only adds the order summary and
 * adjusts the heading once the outcome is known. Reloading the page only asks again.
 */
import {byId, fetchOrder, orderFromQuery, showSummary} from './dom.js';

const orderRef = orderFromQuery();
const outcome = byId('outcome');
const title = byId('result-title');

if (orderRef) {
  byId<HTMLAnchorElement>('retry-link').href = `/checkout?order=${encodeURIComponent(orderRef)}`;
  byId<HTMLAnchorElement>('admin-link').href = `/admin?order=${encodeURIComponent(orderRef)}`;
  void fetchOrder(orderRef).then((order) => {
    if (order) showSummary(byId('summary'), order);
  });
}

outcome.addEventListener('pg-success', () => {
  title.textContent = 'Thank you: your payment went through';
  document.title = `Paid · ${document.title}`;
  byId('pending-note').hidden = true;
});
outcome.addEventListener('pg-failure', () => {
  title.textContent = 'The payment did not go through';
  byId('pending-note').hidden = true;
});
outcome.addEventListener('pg-error', () => {
  title.textContent = 'The payment is not confirmed yet';
  byId('pending-note').hidden = false;
});
