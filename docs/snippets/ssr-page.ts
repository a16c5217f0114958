// ssr-page.ts — your server renders the card form into the checkout page (Hono here).
import {Hono} from 'hono';
import {renderCardForm, styleHashes} from 'pg-checkout/ssr';
import {findOrder} from './orders.js';

// Loads pg-checkout-hydrate.js, beside it in public/pg-checkout/, once the page has painted.
const HYDRATE = '/pg-checkout/pg-checkout-hydrate-after-paint.js';
// The form's styles are inline in its shadow root: allow them by hash, computed once.
const STYLES = await styleHashes(await renderCardForm({endpoint: '/', orderRef: '-'}));

export const pages = new Hono().get('/pay', async (c) => {
  const orderRef = c.req.query('order') ?? '';
  const order = await findOrder(orderRef);
  if (!order) return c.notFound();
  const form = await renderCardForm({
    endpoint: '/checkout/pay',
    orderRef,
    amount: order.total, // the total on the Pay button: from your server, as what is charged
    currency: order.currency,
    lang: 'uk',
    acceptHeader: c.req.header('accept'), // 3-D Secure wants the browser's own
  });
  c.header('Content-Security-Policy', `script-src 'self'; style-src 'self' ${STYLES.join(' ')}`);
  return c.html(`<!doctype html>
<html lang="uk">
<head><meta charset="utf-8"><title>Оплата</title>
<script type="module" src="${HYDRATE}"></script></head>
<body><main><h1>Оплата</h1>${form}</main></body>
</html>`);
});
