/**
 * The customer's side of the sandbox: the issuer's 3-D Secure challenge and the hosted
 * checkout (the addresses a payment's `user_action_url` and 303 `location` point at),
 * the hand-back to the merchant's `result_url`, and the pages' own assets.
 */
import type {SandboxEngine} from './engine/index.js';
import {
  RETURN_SCRIPT,
  STYLESHEET,
  alreadyFinalPage,
  challengePage,
  checkoutPage,
  returnPage,
} from './pages.js';
import {html} from './responses.js';
import type {RegisterPage} from './responses.js';

/** Registers the 3-D Secure and checkout pages and their assets. */
export function registerCustomerPages(
  page: RegisterPage,
  deps: {engine: SandboxEngine; returnMethod: 'POST' | 'GET'},
): void {
  const {engine} = deps;
  const opened = new Map<string, number>();

  const handBack = (paymentId: string): Response => {
    const p = engine.pagePayment(paymentId)!;
    if (deps.returnMethod === 'GET' && p.resultUrl) {
      const target = new URL(p.resultUrl);
      target.searchParams.set('order_id', p.orderId);
      target.searchParams.set('payment_id', p.paymentId);
      return new Response(null, {
        status: 303,
        headers: {location: target.href, 'cache-control': 'no-store'},
      });
    }
    return html(200, returnPage(p, p.resultUrl));
  };

  const unknownPage = () =>
    html(
      404,
      '<!doctype html><html lang="en"><title>Not found</title><h1>No such sandbox payment</h1></html>',
    );

  page('GET', '/sandbox/3ds/:paymentId', (c) => {
    const id = c.req.param('paymentId')!;
    const p = engine.pagePayment(id);
    if (!p) return unknownPage();
    if (!p.challenge) return html(200, alreadyFinalPage(p, p.resultUrl, '3-D Secure verification'));
    const times = opened.get(id) ?? 0;
    opened.set(id, times + 1);
    return html(200, challengePage(p, times > 0));
  });

  page('POST', '/sandbox/3ds/:paymentId', async (c) => {
    const id = c.req.param('paymentId')!;
    const form = new URLSearchParams(await c.req.text());
    const decision = form.get('decision');
    if (!engine.pagePayment(id)) return unknownPage();
    if (decision !== 'approve' && decision !== 'decline') {
      return html(
        400,
        '<!doctype html><html lang="en"><title>Bad request</title><h1>decision must be approve or decline</h1></html>',
      );
    }
    const result = engine.threeDSDecision(id, decision === 'approve')!;
    const p = engine.pagePayment(id)!;
    if (!result.changed)
      return html(200, alreadyFinalPage(p, p.resultUrl, '3-D Secure verification'));
    return handBack(id);
  });

  page('GET', '/sandbox/checkout/:paymentId', (c) => {
    const p = engine.pagePayment(c.req.param('paymentId')!);
    if (!p || p.mode !== 'hosted') return unknownPage();
    if (p.status !== 'init') return html(200, alreadyFinalPage(p, p.resultUrl, 'payment'));
    return html(200, checkoutPage(p, p.resultUrl));
  });

  page('POST', '/sandbox/checkout/:paymentId', async (c) => {
    const id = c.req.param('paymentId')!;
    const p = engine.pagePayment(id);
    if (!p || p.mode !== 'hosted') return unknownPage();
    const form = new URLSearchParams(await c.req.text());
    const result = engine.checkoutPay(id, {
      cc_number: form.get('cc_number') ?? '',
      exp_month: form.get('exp_month') ?? '',
      exp_year: form.get('exp_year') ?? '',
      card_cvv: form.get('card_cvv') ?? '',
    })!;
    const now = engine.pagePayment(id)!;
    switch (result.result) {
      case 'invalid':
        return html(422, checkoutPage(now, now.resultUrl, result.message));
      case 'final':
        return html(200, alreadyFinalPage(now, now.resultUrl, 'payment'));
      case 'challenge':
        return new Response(null, {status: 303, headers: {location: `/sandbox/3ds/${id}`}});
      default:
        return handBack(id);
    }
  });

  page(
    'GET',
    '/sandbox/assets/sandbox.css',
    () =>
      new Response(STYLESHEET, {
        headers: {'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300'},
      }),
  );
  page(
    'GET',
    '/sandbox/assets/return.js',
    () =>
      new Response(RETURN_SCRIPT, {
        headers: {'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=300'},
      }),
  );
}
