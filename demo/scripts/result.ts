/**
 * The result page when the server did not know the outcome yet (server-example's `/thanks`
 * renders a known success itself, with no script): `<pg-3ds-redirect resolve>` asks the
 * server for the order's final status (never trusting the address); this script only
 * adjusts the heading once the outcome is known. The server filled in the order summary
 * and the links. Reloading the page only asks again.
 */
import {byId} from './dom.js';

const outcome = byId('outcome');
const title = byId('result-title');

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
