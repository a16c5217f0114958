/**
 * The sandbox's customer-facing pages: the issuer's 3-D Secure challenge, the hosted
 * checkout, and the hand-back to the merchant's `result_url`. Plain HTML forms with
 * labels, one stylesheet and one tiny script served by the sandbox itself (no inline
 * script, no external resource), and no card data ever put back into a page. Pages are
 * built with Hono's `html` template (imported as `markup`, so the formatter leaves the
 * page text as written), which escapes every interpolated value by default.
 */
import {html as markup, raw} from 'hono/html';
import type {HtmlEscapedString} from 'hono/utils/html';
import {TEST_CARDS} from './cards.js';
import type {PageInfo} from './engine/index.js';

/** Content-Security-Policy of every sandbox page: own assets only, forms may post anywhere. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self' http: https:; base-uri 'none'";

export const STYLESHEET = `:root { color-scheme: light; font-family: system-ui, sans-serif; }
body { margin: 0; background: #eef1f5; color: #1b1f24; }
main { max-width: 30rem; margin: 2.5rem auto; background: #fff; border-radius: 12px; padding: 1.5rem 2rem;
  box-shadow: 0 2px 12px rgb(0 0 0 / 0.08); }
.badge { display: inline-block; background: #fff3cd; color: #5c4400; border: 1px solid #e0c36b;
  border-radius: 999px; padding: 0.15rem 0.75rem; font-size: 0.85rem; font-weight: 600; }
h1 { font-size: 1.35rem; margin: 0.75rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1rem; }
dt { color: #57606a; } dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; flex-wrap: wrap; }
button { font: inherit; font-weight: 600; border: 0; border-radius: 8px; padding: 0.65rem 1.3rem; cursor: pointer; }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.approve { background: #1a7f37; color: #fff; } .decline { background: #cf222e; color: #fff; }
.primary { background: #0969da; color: #fff; }
label { display: block; margin-top: 0.75rem; font-weight: 600; }
input { font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem; border: 1px solid #8c959f; border-radius: 6px; }
.row { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 0.75rem; }
.notice { background: #ddf4ff; border: 1px solid #54aeff; border-radius: 8px; padding: 0.6rem 0.9rem; }
.error { background: #ffebe9; border: 1px solid #ff8182; border-radius: 8px; padding: 0.6rem 0.9rem; }
table { border-collapse: collapse; font-size: 0.85rem; } td, th { text-align: left; padding: 0.2rem 0.5rem 0.2rem 0; }
`;

/** Submits the hand-back form as soon as the page loads (the button is the fallback). */
export const RETURN_SCRIPT = `'use strict';
var form = document.getElementById('pg-sandbox-return');
if (form) form.submit();
`;

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The page text of a template (every part here is synchronous). */
function render(page: Html): string {
  if (page instanceof Promise) throw new TypeError('sandbox pages are synchronous');
  return page.toString();
}

/**
 * The hand-back page's script tag, as trusted markup built from a plain string: a tagged
 * template whose text holds a closing script tag is lowered by the bundler (it must escape
 * that tag inside the template's raw text) into a runtime helper the published sandbox
 * would then depend on.
 */
const RETURN_SCRIPT_TAG = raw('<script src="/sandbox/assets/return.js"></script>\n');

function layout(title: string, body: Html, script = false): string {
  return render(markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Gateway sandbox</title>
<link rel="stylesheet" href="/sandbox/assets/sandbox.css">
</head>
<body>
<main>
<p class="badge">Gateway sandbox: test mode, no real money</p>
${body}
</main>
${script ? RETURN_SCRIPT_TAG : ''}</body>
</html>
`);
}

function summary(p: PageInfo): Html {
  return markup`<dl>
<dt>Order</dt><dd>${p.orderId}</dd>
<dt>Description</dt><dd>${p.description}</dd>
<dt>Amount</dt><dd>${p.amount} ${p.currency}</dd>
${p.cardMask ? markup`<dt>Card</dt><dd>${p.cardMask}</dd>\n` : ''}</dl>`;
}

/** The issuer's challenge: Approve or Decline. `openedBefore` adds a notice. */
export function challengePage(p: PageInfo, openedBefore: boolean): string {
  return layout(
    '3-D Secure verification',
    markup`<h1 id="title">3-D Secure verification (sandbox issuer)</h1>
<p>This page stands in for the card issuer's challenge. Choose what the cardholder does.</p>
${summary(p)}
${openedBefore ? markup`<p class="notice" role="status">This challenge was opened before. Only the first answer counts.</p>\n` : ''}<form method="post" action="/sandbox/3ds/${p.paymentId}" aria-labelledby="title">
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="decline" type="submit" name="decision" value="decline">Decline</button>
</div>
</form>`,
  );
}

/** Shown when the payment is no longer waiting for the page: nothing changed. */
export function alreadyFinalPage(p: PageInfo, resultUrl: string | undefined, what: string): string {
  return layout(
    'Already completed',
    markup`<h1>This ${what} is already completed</h1>
<p role="status">Nothing was changed: the payment is already <strong>${p.status}</strong>${
      p.statusCode ? markup` (${p.statusCode}, ${p.statusDescription})` : ''
    }.</p>
${summary(p)}
${resultUrl ? markup`<p><a href="${resultUrl}">Return to the merchant</a></p>` : ''}`,
  );
}

/**
 * The hand-back to `result_url` by a top-level POST of `order_id` and `payment_id`,
 * submitted by the sandbox's script, with a visible Continue button as the fallback.
 */
export function returnPage(p: PageInfo, resultUrl: string | undefined): string {
  const outcome = markup`The payment is <strong>${p.status}</strong> (${p.statusCode}, ${p.statusDescription}).`;
  if (!resultUrl) {
    return layout(
      'Payment finished',
      markup`<h1>Payment finished</h1><p role="status">${outcome}</p>${summary(p)}<p>No result_url was given, so there is nowhere to return to.</p>`,
    );
  }
  return layout(
    'Returning to the merchant',
    markup`<h1>Returning to the merchant</h1>
<p role="status">${outcome}</p>
<form id="pg-sandbox-return" method="post" action="${resultUrl}">
<input type="hidden" name="order_id" value="${p.orderId}">
<input type="hidden" name="payment_id" value="${p.paymentId}">
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>`,
    true,
  );
}

/** The hosted checkout: a card form, the test cards, and a way back unpaid. */
export function checkoutPage(p: PageInfo, resultUrl: string | undefined, error?: string): string {
  const cards = TEST_CARDS.map(
    (c) => markup`<tr><td>${c.number}</td><td>${c.description}</td></tr>`,
  );
  return layout(
    'Checkout',
    markup`<h1 id="title">Pay ${p.amount} ${p.currency}</h1>
${summary(p)}
${error ? markup`<p class="error" role="alert">${error}</p>\n` : ''}<form method="post" action="/sandbox/checkout/${p.paymentId}" aria-labelledby="title" autocomplete="on">
<label for="cc-number">Card number</label>
<input id="cc-number" name="cc_number" autocomplete="cc-number" inputmode="numeric" required>
<div class="row">
<div><label for="cc-exp-month">Month</label><input id="cc-exp-month" name="exp_month" autocomplete="cc-exp-month" inputmode="numeric" placeholder="MM" required></div>
<div><label for="cc-exp-year">Year</label><input id="cc-exp-year" name="exp_year" autocomplete="cc-exp-year" inputmode="numeric" placeholder="YYYY" required></div>
<div><label for="cc-csc">CVV</label><input id="cc-csc" name="card_cvv" autocomplete="cc-csc" inputmode="numeric" required></div>
</div>
<div class="actions"><button class="primary" type="submit">Pay ${p.amount} ${p.currency}</button></div>
</form>
${resultUrl ? markup`<p><a href="${resultUrl}">Return to merchant</a> without paying</p>` : ''}
<details><summary>Test cards</summary><table><tbody>${cards}</tbody></table><p>Any future expiry date and any 3-digit CVV.</p></details>`,
  );
}
