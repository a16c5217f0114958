// server.ts — the first payment's server, with the customer's saved cards under
// /account/cards and a stand-in sign-in (yours checks a password or a link).
import {serve} from '@hono/node-server';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono} from 'hono';
import {createCheckout} from './checkout.js';
import {savedCardRoutes} from './saved-cards.js';
import {customerOf, signIn} from './session.js';

const checkout = createCheckout();
const app = new Hono();
app.route('/checkout', checkout);
app.route('/account/cards', savedCardRoutes(checkout, customerOf)); // GET, DELETE /:id
app.get('/sign-in', (c) => {
  c.header('Set-Cookie', signIn('olena')); // the stand-in: every visitor is Olena
  return c.redirect(`/?order=${encodeURIComponent(c.req.query('order') ?? 'ORDER-1001')}`);
});
app.get('/order/result', serveStatic({path: './public/result.html'}));
app.use('/*', serveStatic({root: './public'}));

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
