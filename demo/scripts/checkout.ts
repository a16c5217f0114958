/**
 * The checkout page: puts the order from the address on the hosted form (the server put
 * it on the card form it rendered, and rendered the order summary), lets the customer
 * choose 3-D Secure in a modal, and says the outcome in place once the payment succeeds
 * (the address becomes the result page's). It asks the server nothing: what it shows came
 * with the page.
 */
import type {PgCardForm} from '../../src/card-form/card-form.js';
import {byId, orderFromQuery} from './dom.js';

const orderRef = orderFromQuery();
// Rendered by the server with the order (pg-checkout/ssr): absent when there is none.
const form = document.getElementById('card-form') as PgCardForm | null;
const hosted = byId<HTMLFormElement>('hosted-form');

if (!orderRef || !form) {
  byId('no-order').hidden = false;
  byId('checkout').hidden = true;
} else {
  byId<HTMLInputElement>('hosted-order').value = orderRef;
  byId<HTMLAnchorElement>('cdn-link').href = `/cdn?order=${encodeURIComponent(orderRef)}`;

  const modal = byId<HTMLInputElement>('modal-3ds');
  const applyMode = () => {
    form.setAttribute('three-ds-mode', modal.checked ? 'iframe' : 'redirect');
    form.setAttribute('challenge-window-size', modal.checked ? '03' : '05');
  };
  modal.addEventListener('change', applyMode);
  applyMode();

  // Success is said in place, as the result page would say it, without a second request:
  // the pay panel gives way to the outcome, the address becomes the result page's (a
  // reload, a bookmark or a shared link renders it on the server), and the heading takes
  // focus so a screen reader announces it.
  form.addEventListener('pg-success', () => {
    const ref = encodeURIComponent(orderRef);
    const heading = byId('result-title');
    heading.textContent = 'Thank you: your payment went through';
    document.title = `Paid · Payment result · Kava & Chai (pg-checkout demo)`;
    byId('pay-panel').hidden = true;
    byId<HTMLAnchorElement>('admin-link').href = `/admin?order=${ref}`;
    byId('paid').hidden = false;
    history.replaceState(null, '', `/thanks?order=${ref}`);
    heading.focus();
  });

  // One click on "Pay on the gateway's page" is enough: the button stays off afterwards.
  hosted.addEventListener('submit', () => {
    for (const button of hosted.querySelectorAll('button')) button.disabled = true;
  });
  // Coming back with the browser's back button restores the page from the cache.
  window.addEventListener('pageshow', () => {
    for (const button of hosted.querySelectorAll('button')) button.disabled = false;
  });
}
