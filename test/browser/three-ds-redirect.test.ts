// <pg-3ds-redirect>: top-level redirect, modal iframe with EMV window sizes and return
// detection, and the return page asking the status route (slow, failing, unknown order),
// never trusting the query string.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import {elementBaseTests} from './element-base-tests.js';
import {PENDING_ORDER_KEY} from '../../src/protocol/checkout.js';
import type {PgErrorEvent, PgFailureEvent, PgSuccessEvent} from '../../src/events/events.js';
import {json, once, stubFetch, until} from './helpers.js';
import {ManualClock, settle} from './clock.js';
import {loadMessages} from '../../src/i18n/messages.js';

// Ukrainian loads on demand like every locale but English: have it at hand for the tests
// that read its texts at once.
before(() => loadMessages('uk'));

const FINAL_SUCCESS = {
  orderRef: 'o-7',
  state: 'success',
  final: true,
  code: '1000',
  message: 'Approved',
};
const FINAL_FAILURE = {
  orderRef: 'o-7',
  state: 'failure',
  final: true,
  code: '2001',
  reason: 'wrong_cvv',
  message: 'Declined',
};

let stub: ReturnType<typeof stubFetch> | undefined;
const originalUrl = location.href;
afterEach(() => {
  stub?.restore();
  stub = undefined;
  sessionStorage.clear();
  history.replaceState(null, '', originalUrl);
});

const statusText = (el: PgThreeDSRedirect) =>
  el.shadowRoot!.querySelector('[part="status"]')!.textContent!.replace(/\s+/g, ' ').trim();

/**
 * `<pg-3ds-redirect>` on a return page, on `clock`: it asks `/s` for the pending order every
 * `interval` ms (doubling) until `timeout`.
 */
const onReturnPage = (clock: ManualClock, interval: number, timeout: number) =>
  fixture<PgThreeDSRedirect>(
    html`<pg-3ds-redirect
      .clock=${clock}
      resolve
      status-endpoint="/s"
      poll-interval=${interval}
      timeout=${timeout}
    ></pg-3ds-redirect>`,
  );

describe('pg-3ds-redirect redirect mode', () => {
  it('keeps only the order reference and navigates the top level to the challenge', async () => {
    const el = await fixture<PgThreeDSRedirect>(html`<pg-3ds-redirect></pg-3ds-redirect>`);
    const visited: string[] = [];
    el.navigate = (url) => visited.push(url);
    await el.start('https://acs.example/c?x=1', 'o-7');
    expect(visited).to.deep.equal(['https://acs.example/c?x=1']);
    expect(sessionStorage.getItem(PENDING_ORDER_KEY)).to.equal('o-7');
    expect(sessionStorage.length).to.equal(1);
    expect(statusText(el)).to.equal('Redirecting to your bank for confirmation…');
    await expect(el).to.be.accessible();
  });

  it('refuses a non-http(s) challenge URL', async () => {
    const el = await fixture<PgThreeDSRedirect>(html`<pg-3ds-redirect></pg-3ds-redirect>`);
    const visited: string[] = [];
    el.navigate = (url) => visited.push(url);
    const got = new Promise<PgErrorEvent>((r) => el.addEventListener('pg-error', r, {once: true}));
    await el.start('javascript:alert(1)', 'o-7');
    expect((await got).detail.code).to.equal('bad_response');
    expect(visited).to.have.length(0);
  });
});

describe('pg-3ds-redirect iframe mode', () => {
  it('opens a modal dialog with the EMV window size', async () => {
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect mode="iframe" window-size="01"></pg-3ds-redirect>`,
    );
    await el.start(new URL('./fixtures/return.html', import.meta.url).href, 'o-7');
    const dialog = el.shadowRoot!.querySelector('dialog')!;
    const frame = el.shadowRoot!.querySelector('iframe')!;
    expect(dialog.open).to.equal(true);
    // The dialog's styles (loaded with the first challenge) are there once it opens.
    expect(getComputedStyle(dialog).paddingTop).to.equal('0px');
    expect(getComputedStyle(frame).display).to.equal('block');
    expect(frame.getAttribute('width')).to.equal('250');
    expect(frame.getAttribute('height')).to.equal('400');
    el.close();
    el.windowSize = '04';
    await el.start('https://acs.example/c', 'o-7');
    expect(el.shadowRoot!.querySelector('iframe')!.getAttribute('width')).to.equal('600');
    el.close();
    el.windowSize = '05';
    await el.start('https://acs.example/c', 'o-7');
    expect(el.shadowRoot!.querySelector('dialog')!.classList.contains('dialog--full')).to.equal(
      true,
    );
    expect(el.shadowRoot!.querySelector('iframe')!.getBoundingClientRect().width).to.equal(
      document.documentElement.clientWidth,
    );
    el.close();
  });

  it('closes the modal and resolves via the status route when the frame returns to the merchant', async () => {
    stub = stubFetch(() => json(FINAL_SUCCESS));
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect
        mode="iframe"
        window-size="03"
        status-endpoint="/shop/status"
        poll-interval="20"
      ></pg-3ds-redirect>`,
    );
    const returnUrl = new URL('./fixtures/return.html', import.meta.url);
    el.returnUrl = returnUrl.pathname;
    // The "bank" lives on another origin (127.0.0.1 vs localhost) and sends the frame back.
    const acs = new URL('./fixtures/acs.js', import.meta.url);
    const otherHost = acs.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    const acsPage = new URL(
      `./fixtures/acs.html?return=${encodeURIComponent(returnUrl.href)}`,
      import.meta.url,
    );
    acsPage.hostname = otherHost;
    const got = new Promise<PgSuccessEvent>((r) =>
      el.addEventListener('pg-success', r, {once: true}),
    );
    await el.start(acsPage.href, 'o-7');
    expect(el.shadowRoot!.querySelector('dialog')!.open).to.equal(true);
    const event = await got;
    expect(event.detail).to.deep.equal({orderRef: 'o-7', code: '1000', message: 'Approved'});
    expect(el.shadowRoot!.querySelector('dialog')!.open).to.equal(false);
    expect(stub.calls[0]!.url).to.include('/shop/status?order=o-7');
    await el.updateComplete;
    expect(statusText(el)).to.equal('Payment successful.');
    await expect(el).to.be.accessible();
  });
});

describe('pg-3ds-redirect return page', () => {
  it('resolves the order kept in sessionStorage through the status route', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    stub = stubFetch(() => json(FINAL_SUCCESS));
    const got = new Promise<PgSuccessEvent>((r) =>
      document.addEventListener('pg-success', r, {once: true}),
    );
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/shop/status"></pg-3ds-redirect>`,
    );
    const event = await got;
    expect(event.detail.orderRef).to.equal('o-7');
    expect(stub.calls).to.have.length(1);
    expect(stub.calls[0]!.method).to.equal('GET');
    expect(stub.calls[0]!.headers.get('X-PG-Checkout')).to.equal('1');
    expect(stub.calls[0]!.headers.get('traceparent')).to.match(
      /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$/,
    );
    await el.updateComplete;
    expect(el.state).to.equal('success');
  });

  it('emits the outcome only once the page scripts have run, however late they arrive', async () => {
    // The element's module runs first and learns the outcome at once; the page's own
    // module (its listener) is still downloading. The outcome must wait for it.
    const frame = document.createElement('iframe');
    frame.src = new URL('./fixtures/late-listener.html?order=o-7', import.meta.url).href;
    const loaded = new Promise((r) => frame.addEventListener('load', r, {once: true}));
    document.body.append(frame);
    try {
      await loaded;
      const win = frame.contentWindow as Window & {heard: string[]; statusCalls: number};
      const el = win.document.querySelector('pg-3ds-redirect') as PgThreeDSRedirect;
      await until(() => el.state === 'success');
      expect(win.heard).to.deep.equal(['pg-success']);
      expect(win.statusCalls).to.equal(1);
    } finally {
      frame.remove();
    }
  });

  it('takes the order from the query string but never the outcome', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'stale');
    const url = new URL(location.href);
    url.searchParams.set('order', 'o-7');
    url.searchParams.set('status', 'success');
    history.replaceState(null, '', url);
    stub = stubFetch(() => json(FINAL_FAILURE));
    const got = new Promise<PgFailureEvent>((r) =>
      document.addEventListener('pg-failure', r, {once: true}),
    );
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/shop/status"></pg-3ds-redirect>`,
    );
    const event = await got;
    expect(event.detail).to.deep.equal({orderRef: 'o-7', code: '2001', message: 'Declined'});
    expect(stub.calls[0]!.url).to.include('order=o-7');
    await el.updateComplete;
    expect(statusText(el), 'the reason in the browser’s words').to.equal(
      'Payment declined: wrong security code.',
    );
    await expect(el).to.be.accessible();
  });

  it('waits out a slow status endpoint with backoff until the state is final', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    const clock = new ManualClock();
    const times: number[] = [];
    stub = stubFetch(async (_r, i) => {
      times.push(clock.now());
      await clock.sleep(60, new AbortController().signal); // slow answers
      return json(i < 3 ? {orderRef: 'o-7', state: 'processing', final: false} : FINAL_SUCCESS);
    });
    const el = await onReturnPage(clock, 40, 5000);
    await el.updateComplete;
    expect(statusText(el)).to.equal('Checking the payment status…');
    await clock.runUntil(() => el.state === 'success', 'success');
    expect(stub.calls).to.have.length(4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Each wait doubles (40, 80, 160 ms) after 60 ms answers.
    expect(gaps).to.deep.equal([60 + 40, 60 + 80, 60 + 160]);
  });

  it('moves no time while an answer is being read, however slowly (a busy machine)', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    const clock = new ManualClock();
    /** An answer whose body takes a dozen tasks to read, as on a loaded machine. */
    class SlowBody extends Response {
      override async json(): Promise<unknown> {
        await settle(12); // twelve tasks of the browser, no clock
        return super.json();
      }
    }
    stub = stubFetch(
      (_r, i) =>
        new SlowBody(
          JSON.stringify(
            i < 2 ? {orderRef: 'o-7', state: 'processing', final: false} : FINAL_SUCCESS,
          ),
          {headers: {'Content-Type': 'application/json'}},
        ),
    );
    const el = await onReturnPage(clock, 40, 5000);
    await clock.runUntil(() => el.state === 'success', 'success');
    expect(stub.calls).to.have.length(3);
    // Only the two waits between requests went by, not the request's 5 s deadline.
    expect(clock.now()).to.equal(40 + 80);
  });

  it('gives up at the deadline when the status endpoint keeps failing, offering to check again', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    const clock = new ManualClock(1_000_000);
    stub = stubFetch((_r, i) =>
      i % 2
        ? Promise.reject(new TypeError('offline'))
        : json({error: {code: 'internal', message: 'x'}}, 500),
    );
    const got = once<PgErrorEvent>(document, 'pg-error');
    let event: PgErrorEvent | undefined;
    void got.then((e) => (event = e));
    const el = await onReturnPage(clock, 20, 400);
    await clock.runUntil(() => event !== undefined, 'pg-error');
    // Requests at 0, 20, 60, 140 and 300 ms; the next wait is cut to the deadline.
    expect(clock.now() - 1_000_000).to.equal(400);
    expect(event!.detail).to.deep.include({code: 'timeout', retryable: true, orderRef: 'o-7'});
    expect(stub.calls.length).to.be.greaterThan(2);
    await el.updateComplete;
    expect(statusText(el)).to.equal(
      'We could not confirm the payment yet. Check again in a moment.',
    );
    const retry = el.shadowRoot!.querySelector<HTMLButtonElement>('[part="retry"]')!;
    await expect(el).to.be.accessible();
    stub.restore();
    stub = stubFetch(() => json(FINAL_SUCCESS));
    const succeeded = once(el, 'pg-success');
    retry.click();
    await succeeded;
    expect(el.state).to.equal('success');
  });

  it('gives up at the deadline when the status endpoint never answers', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    const clock = new ManualClock();
    stub = stubFetch(
      (_r) =>
        new Promise<Response>(() => {
          /* never answers */
        }),
    );
    const el = await onReturnPage(clock, 20, 300);
    await clock.runUntil(() => el.state === 'error', 'timeout');
    expect(el.state).to.equal('error');
    expect(clock.now()).to.equal(300);
    expect(stub.calls).to.have.length(1);
  });

  it('stops at once when the order is unknown', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    stub = stubFetch(() => json({error: {code: 'not_found', message: 'No such order'}}, 404));
    const got = new Promise<PgErrorEvent>((r) =>
      document.addEventListener('pg-error', r, {once: true}),
    );
    await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/s" poll-interval="20"></pg-3ds-redirect>`,
    );
    const event = await got;
    expect(event.detail).to.deep.include({code: 'not_found', retryable: false, status: 404});
    expect(stub.calls).to.have.length(1);
  });

  it('reports a missing order when there is nothing to resolve', async () => {
    stub = stubFetch(() => json(FINAL_SUCCESS));
    const got = new Promise<PgErrorEvent>((r) =>
      document.addEventListener('pg-error', r, {once: true}),
    );
    await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/s"></pg-3ds-redirect>`,
    );
    expect((await got).detail.code).to.equal('missing_order');
    expect(stub.calls).to.have.length(0);
  });

  it('is harmless to reload: resolving again only reads and shows the same outcome', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    stub = stubFetch(() => json(FINAL_SUCCESS));
    const first = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/s"></pg-3ds-redirect>`,
    );
    await until(() => first.state === 'success');
    first.remove();
    const second = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect resolve status-endpoint="/s"></pg-3ds-redirect>`,
    );
    await until(() => second.state === 'success');
    expect(stub.calls.map((c) => c.method)).to.deep.equal(['GET', 'GET']);
    expect(sessionStorage.getItem(PENDING_ORDER_KEY)).to.equal('o-7');
  });

  it('shows the outcome in Ukrainian', async () => {
    sessionStorage.setItem(PENDING_ORDER_KEY, 'o-7');
    stub = stubFetch(() => json({...FINAL_SUCCESS, message: ''}));
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect lang="uk" resolve status-endpoint="/s"></pg-3ds-redirect>`,
    );
    await until(() => el.state === 'success');
    await el.updateComplete;
    expect(statusText(el)).to.equal('Оплата пройшла успішно.');
  });
});

elementBaseTests<PgThreeDSRedirect>({
  tag: 'pg-3ds-redirect',
  element: PgThreeDSRedirect,
  create: () => fixture<PgThreeDSRedirect>(html`<pg-3ds-redirect></pg-3ds-redirect>`),
  // `resolve` is left out: it starts resolving an order, which is an action, not a setting.
  properties: {
    mode: 'iframe',
    windowSize: '02',
    statusEndpoint: '/other/status',
    timeout: 1000,
    pollInterval: 50,
    noStatus: true,
    messages: {threeDSRedirecting: 'x'},
    lang: 'uk',
  },
  reflected: {},
});
