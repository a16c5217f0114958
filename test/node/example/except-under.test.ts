/**
 * The example's `exceptUnder`: the paths it skips a middleware on are the ones
 * `except('<prefix>/*', …)` of `hono/combine` skipped, which it replaced on every request.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {Hono, type MiddlewareHandler} from 'hono';
import {except} from 'hono/combine';
import {exceptUnder} from '../../../server-example/app.js';

const marks: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('X-Ran', '1');
};

function app(use: MiddlewareHandler) {
  const a = new Hono();
  a.use('*', use);
  a.all('*', (c) => c.text('ok'));
  return a;
}

test('skips a middleware on the paths except skipped, and only those', async () => {
  const ours = app(exceptUnder(['/api/checkout', '/admin'], marks));
  const theirs = app(except(['/api/checkout/*', '/admin', '/admin/*'], marks));
  const paths = [
    '/',
    '/api/checkout',
    '/api/checkout/',
    '/api/checkout/pay',
    '/api/checkout/a/b',
    '/api/checkoutx',
    '/api/orders',
    '/Api/checkout/pay',
    '/admin',
    '/admin/',
    '/admin/x/y',
    '/adminx',
    '/cdn',
  ];
  const ran = async (a: Hono, p: string) => (await a.request(p)).headers.get('X-Ran') === '1';
  for (const p of paths) assert.equal(await ran(ours, p), await ran(theirs, p), p);
  assert.equal(await ran(ours, '/api/checkout/pay'), false);
  assert.equal(await ran(ours, '/cdn'), true);
});
