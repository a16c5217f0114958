// checkout-page.ts — your pages' script: the elements, bundled by esbuild (or Vite, webpack...).
import 'pg-checkout'; // defines <pg-card-form>, <pg-3ds-redirect>, <pg-fingerprint>

const form = document.querySelector('pg-card-form');
form?.addEventListener('pg-success', (event) => {
  location.assign(`/order/result?order=${encodeURIComponent(event.detail.orderRef)}`);
});
