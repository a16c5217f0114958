// ssr-page.ts — your server renders the card form into the page (Hono here).
import {Hono} from 'hono';
import {renderCardForm, styleHashes} from 'pg-checkout/ssr';

// Loads pg-checkout-hydrate.js (deploy it beside) once the page has painted.
const HYDRATE = 'https://cdn.example/pg-checkout@0.1.0/dist/cdn/pg-checkout-hydrate-after-paint.js';
// The form's styles are inline in its shadow root: allow them by hash, computed once.
const STYLES = await styleHashes(await renderCardForm({endpoint: '/', orderRef: '-'}));

export const pages = new Hono().get('/checkout', async (c) => {
  const order = {ref: c.req.query('order') ?? '', amount: '12.50', currency: 'UAH'}; // yours
  const form = await renderCardForm({
    endpoint: '/checkout/pay',
    orderRef: order.ref,
    amount: order.amount,
    currency: order.currency,
    lang: 'uk',
  });
  c.header(
    'Content-Security-Policy',
    `script-src https://cdn.example; style-src 'self' ${STYLES.join(' ')}`,
  );
  return c.html(`<!doctype html>
<html lang="uk">
<head><meta charset="utf-8"><title>Оплата</title>
<script type="module" src="${HYDRATE}" crossorigin="anonymous"></script></head>
<body><main><h1>Оплата</h1>${form}</main></body>
</html>`);
});
