// server.ts — your shop's server (Node): your pages from public/, the companion under /checkout.
import {serve} from '@hono/node-server';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono} from 'hono';
import {createCheckout} from './checkout.js';

const checkout = createCheckout();
const app = new Hono();
app.route('/checkout', checkout); // POST /checkout/pay, GET /checkout/status, ...
app.get('/order/result', serveStatic({path: './public/result.html'})); // checkout.ts's returnPage
app.use('/*', serveStatic({root: './public'})); // index.html, checkout-page.js: your pages

checkout.start(); // recovery and the sweep run in the background; it serves at once
// A request's head within 10 s and the whole request within 15 s, or 408 and closed (Node's
// default lets a client sending a byte now and then hold a connection five minutes).
const serverOptions = {
  headersTimeout: 10_000,
  requestTimeout: 15_000,
  connectionsCheckingInterval: 1000,
};
serve({fetch: app.fetch, port: Number(process.env.PORT) || 3000, serverOptions}, (info) => {
  console.log(`listening on http://localhost:${info.port}`);
});
