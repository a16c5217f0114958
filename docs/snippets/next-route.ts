// app/checkout/[...path]/route.ts — Next.js (App Router), with checkout.ts beside it.
import {Hono} from 'hono';
import {createCheckout} from './checkout.js';

const checkout = createCheckout({
  // No socket here: the customer's address comes from your platform's header.
  clientIp: (request) => request.headers.get('x-real-ip') ?? undefined,
});
checkout.start();

const app = new Hono().route('/checkout', checkout);
const handler = (request: Request) => app.fetch(request);
export {handler as GET, handler as POST, handler as OPTIONS};
export const runtime = 'nodejs'; // the SQLite store needs Node
