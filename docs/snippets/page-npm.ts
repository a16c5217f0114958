// checkout-page.ts — your pages' script: the elements, bundled by esbuild (or Vite, webpack...).
import 'pg-checkout'; // defines <pg-card-form>, <pg-3ds-redirect>, <pg-fingerprint>

const form = document.querySelector('pg-card-form');
// The order in the address (`/?order=ORDER-1002`), else the page's own: the server prices it.
const order = new URLSearchParams(location.search).get('order');
if (form && order) form.orderRef = order;
form?.addEventListener('pg-success', (event) => {
  const {orderRef, alreadyPaid} = event.detail;
  // Paid before (another visit, another tab): the result page says "already paid" too.
  const before = alreadyPaid ? '&already_paid=1' : '';
  location.assign(`/order/result?order=${encodeURIComponent(orderRef)}${before}`);
});
