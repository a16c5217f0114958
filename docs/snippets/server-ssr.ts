// server.ts — the first payment's server, with the checkout page rendered on the server
// at /pay?order=… (ssr-page.ts).
import {serve} from '@hono/node-server';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono} from 'hono';
import {createCheckout} from './checkout.js';
import {pages} from './ssr-page.js';

const checkout = createCheckout();
const app = new Hono();
app.route('/checkout', checkout); // POST /checkout/pay, GET /checkout/status, ...
app.route('/', pages); // GET /pay?order=ORDER-1001: the page with the form in its HTML
app.get('/order/result', serveStatic({path: './public/result.html'}));
app.use('/*', serveStatic({root: './public'})); // and public/pg-checkout/: the hydrating module

checkout.start();
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
