/**
 * The checkout page: puts the order from the address on the hosted form (the server put
 * it on the card form it rendered, and rendered the order summary), lets the customer
 * choose 3-D Secure in a modal, and moves on to the result page once the payment succeeds.
 * It asks the server nothing: what it shows came with the page.
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

  form.addEventListener('pg-success', () => {
    location.assign(`/thanks?order=${encodeURIComponent(orderRef)}`);
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
