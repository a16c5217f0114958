/**
 * The shop's pages: the store (a plain form per product, so it works without script), the
 * checkout with `<pg-card-form>` and the order summary rendered on the server, the result
 * page (a known success rendered on the server, else `<pg-3ds-redirect>` asking the
 * status), and the CDN page, which the server fills in (it has no script of its own).
 * Each of pg-checkout's files is named with its `integrity` (the PCI DSS 6.4.3 way).
 * Rendered with `hono/html` through `PageTemplates`, so every value is escaped.
 */
import {Hono} from 'hono';
import {html, raw} from 'hono/html';
import type {StatusResponse} from '../src/protocol/checkout.js';
import type {InitRecurringInput} from '../src/server/index.js';
import type {CdnFiles} from './assets.js';
import {cardFormHtml} from './card-form-html.js';
import {PRODUCTS, PRODUCT_IDS, describeSchedule} from './catalog.js';
import type {TakeOrderPlace} from './order-limit.js';
import {MISSING_BUILD_NOTE, sendPage, type PageTemplates, type Slot} from './pages.js';
import {waitText} from './throttle.js';
import {OrderBody, ShopOrderRef, type ShopOrder, type ShopOrders} from './shop.js';

export interface StorefrontDeps {
  shop: ShopOrders;
  templates: PageTemplates;
  /** The CDN files (assets.ts), once built. */
  getCdn: () => CdnFiles | undefined;
  subscription: InitRecurringInput;
  takeOrderPlace: TakeOrderPlace;
  /** Where the companion is mounted. */
  checkoutBase: string;
  /** The order's payment state, as the companion's status route answers it. */
  orderStatus: (orderRef: string, request: Request) => Promise<StatusResponse>;
}

/** `<script type="module">` of a CDN file served under /assets/, with its SRI hash. */
function cdnScript(cdn: CdnFiles | undefined, file: string) {
  const integrity = cdn?.get(file)?.integrity;
  return integrity
    ? html`<script type="module" src="/assets/${file}" integrity="${integrity}"></script>`
    : '';
}

/** The order summary of the checkout and result pages, as the server knows the order. */
function summaryList(order: ShopOrder) {
  return html`<dl class="summary-list" id="summary">
    <div>
      <dt>Order</dt>
      <dd class="mono" data-field="orderRef">${order.orderRef}</dd>
    </div>
    <div>
      <dt>Item</dt>
      <dd data-field="description">${order.description}</dd>
    </div>
    <div>
      <dt>Total</dt>
      <dd data-field="total">${order.amount} ${order.currency}</dd>
    </div>
  </dl>`;
}

/** What the checkout says about an order that is not a plain purchase. */
function kindNote(order: ShopOrder, subscription: InitRecurringInput) {
  const text =
    order.kind === 'subscription'
      ? `A subscription: this card is charged now and then ${describeSchedule(subscription)}, until you cancel.`
      : order.kind === 'auth'
        ? 'A deposit: the amount is held on your card now and captured only if needed.'
        : '';
  return text ? html`<p class="hint" id="kind-note">${text}</p>` : '';
}

/**
 * The result page's order summary, the heading, the links and what tells the outcome. A
 * success the server already knows (a frictionless card, a webhook or the return from
 * 3-D Secure came first) is the page itself, as a plain form's answer page would be: no
 * script, no status request. Otherwise `<pg-3ds-redirect resolve>` and the page's script
 * ask the status route and say the outcome when it is known.
 */
function resultSlots(
  order: ShopOrder | undefined,
  paid: boolean,
  checkoutBase: string,
  cdn: CdnFiles | undefined,
): Record<string, Slot> {
  const ref = order ? encodeURIComponent(order.orderRef) : '';
  const summary = order ? summaryList(order) : '';
  const links = {
    'retry-href': order ? `/checkout?order=${ref}` : '/',
    'admin-href': order ? `/admin?order=${ref}` : '/admin',
  };
  if (paid) {
    return {
      ...links,
      'title-prefix': 'Paid · ',
      heading: 'Thank you: your payment went through',
      summary,
      scripts: '',
      outcome: '',
    };
  }
  return {
    ...links,
    heading: 'Payment result',
    summary,
    // The checkout's module (it hydrates, and renders what was not rendered on the server):
    // already in the cache when the customer arrives from the checkout.
    scripts: html`${cdnScript(cdn, 'pg-checkout-hydrate.js')}
      <script type="module" src="/demo/js/result.js"></script>`,
    outcome: html`<pg-3ds-redirect
      id="outcome"
      resolve
      status-endpoint="${checkoutBase}/status"
    ></pg-3ds-redirect>`,
  };
}

export function storefrontRoutes(deps: StorefrontDeps): Hono {
  const {shop, templates, getCdn} = deps;
  const shopPages = new Hono();

  /** A page of `demo/`, with the missing-build notice when the bundle is not built. */
  const page = (name: string, slots: Record<string, Slot> = {}) =>
    templates.render(name, {'build-note': getCdn() ? '' : MISSING_BUILD_NOTE, ...slots});

  shopPages.get('/', function storePage(c) {
    const cards = PRODUCT_IDS.map((id) => {
      const p = PRODUCTS[id];
      const tag =
        p.kind === 'subscription'
          ? html`<span class="tag">Subscription, ${describeSchedule(deps.subscription)}</span>`
          : p.kind === 'auth'
            ? html`<span class="tag">Held, captured later</span>`
            : '';
      return html`<li class="product">
        <h2 class="product__name">${p.name}</h2>
        <p class="product__blurb">${p.blurb}</p>
        ${tag}
        <p class="product__price">${p.amount} ${p.currency}</p>
        <form method="post" action="/orders" class="product__actions">
          <input type="hidden" name="productId" value="${id}" />
          <button class="button" name="page" value="checkout">Buy ${p.name.toLowerCase()}</button>
        </form>
      </li>`;
    });
    return sendPage(c, page('index', {products: html`${cards}`}));
  });

  // A plain form: the store works without script. `page=cdn` leads to the CDN page.
  shopPages.post('/orders', async function orderForm(c) {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const parsed = OrderBody.safeParse({productId: form['productId']});
    if (!parsed.success) return c.text('unknown product', 400);
    const wait = await deps.takeOrderPlace(c);
    if (wait !== undefined) {
      return c.text(`Too many new orders from your address: try again in ${waitText(wait)}.`, 429, {
        'Retry-After': String(wait),
      });
    }
    const order = await shop.create(parsed.data.productId);
    const target = form['page'] === 'cdn' ? '/cdn' : '/checkout';
    return c.redirect(`${target}?order=${order.orderRef}`, 303);
  });

  // The card form arrives rendered (pg-checkout/ssr): typeable before the bundle runs. The
  // summary too: the page asks nothing before the customer pays, and an order already paid
  // goes to its result page straight away.
  shopPages.get('/checkout', async function checkoutPage(c) {
    const ref = ShopOrderRef.safeParse(c.req.query('order'));
    const order = ref.success ? await shop.get(ref.data) : undefined;
    if (order?.paid) return c.redirect(`/thanks?order=${encodeURIComponent(order.orderRef)}`, 303);
    const form = order ? raw(await cardFormHtml(order, deps.checkoutBase)) : '';
    return sendPage(
      c,
      page('checkout', {
        // It loads pg-checkout-hydrate.js once the page has painted, checked by its hash.
        loader: cdnScript(getCdn(), 'pg-checkout-hydrate-after-paint.js'),
        'card-form': form,
        summary: order ? summaryList(order) : '',
        'kind-note': order ? kindNote(order, deps.subscription) : '',
      }),
    );
  });

  // A success the server knows is shown at once; anything else is asked by the element.
  shopPages.get('/thanks', async function resultPage(c) {
    const ref = ShopOrderRef.safeParse(c.req.query('order'));
    const order = ref.success ? await shop.get(ref.data) : undefined;
    const status = order
      ? await deps.orderStatus(order.orderRef, c.req.raw).catch(() => undefined)
      : undefined;
    const paid = status?.state === 'success' && status.final;
    return sendPage(c, page('result', resultSlots(order, paid, deps.checkoutBase, getCdn())));
  });

  // The CDN page: nothing but the bundle's script tag with its SRI hash; the server fills in
  // the order, so the page needs no script of its own.
  shopPages.get('/cdn', async function cdnPage(c) {
    const ref = ShopOrderRef.safeParse(c.req.query('order'));
    const order = ref.success ? await shop.get(ref.data) : undefined;
    const b = getCdn()?.get('pg-checkout.js');
    const body = order
      ? html`<p class="summary">
            <span>${order.description}</span> <strong>${order.amount} ${order.currency}</strong>
          </p>
          <pg-card-form
            endpoint="${deps.checkoutBase}/pay"
            order-ref="${order.orderRef}"
          ></pg-card-form>
          <p class="hint">
            After paying, see the result on
            <a href="/thanks?order=${order.orderRef}">the order's result page</a>.
          </p>`
      : html`<form method="post" action="/orders" class="stack">
          <input type="hidden" name="productId" value="tea-sampler" />
          <p>Start an order for the tea sampler (1.20 XTS) and pay for it on this page.</p>
          <button class="button" name="page" value="cdn">Start an order</button>
        </form>`;
    const script = b
      ? html`<script
          type="module"
          src="/assets/pg-checkout.js"
          integrity="${b.integrity}"
          crossorigin="anonymous"
        ></script>`
      : '';
    return sendPage(c, page('cdn', {script, body}));
  });

  return shopPages;
}
