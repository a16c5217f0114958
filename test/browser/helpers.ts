// Shared helpers of the element tests: a fetch stub that records requests, typing through
// the real keyboard, and a scan proving no card data leaked into the page.
import {sendKeys} from '@web/test-runner-commands';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import {offClock} from './clock.js';

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

type Handler = (request: RecordedRequest, index: number) => Response | Promise<Response>;

/** Replaces `window.fetch` until `restore()`; every call is recorded. */
export function stubFetch(handler: Handler) {
  const original = window.fetch;
  const calls: RecordedRequest[] = [];
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const request: RecordedRequest = {
      url,
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: text ? JSON.parse(text) : undefined,
    };
    calls.push(request);
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    // Like real fetch, reject as soon as the request is aborted.
    const aborted = new Promise<never>((_, reject) =>
      signal?.addEventListener('abort', () => reject(signal.reason), {once: true}),
    );
    return readOffClock(await Promise.race([handler(request, calls.length - 1), aborted]));
  };
  return {
    calls,
    restore() {
      window.fetch = original;
    },
  };
}

/**
 * `response`, its body's reads counted as work off the clock (`offClock`): reading an answer
 * takes the browser a task or more, longer on a busy machine, and a `ManualClock` must not
 * move meanwhile (it would run out the request's deadline while the answer is being read).
 */
function readOffClock(response: Response): Response {
  for (const read of ['json', 'text', 'arrayBuffer', 'blob'] as const) {
    const original = response[read].bind(response) as () => Promise<unknown>;
    Object.defineProperty(response, read, {value: () => offClock(original()), configurable: true});
  }
  return response;
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {status, headers: {'Content-Type': 'application/json'}});

export function inputOf(el: HTMLElement, name: string): HTMLInputElement {
  const input = el.shadowRoot!.querySelector<HTMLInputElement>(`#${name}`);
  if (!input) throw new Error(`no #${name} input`);
  return input;
}

export function errorOf(el: HTMLElement, name: string): string {
  return el.shadowRoot!.querySelector(`#${name}-error`)!.textContent!.trim();
}

export function statusOf(el: HTMLElement): string {
  return el.shadowRoot!.querySelector('[part="status"]')!.textContent!.replace(/\s+/g, ' ').trim();
}

export function buttonOf(el: HTMLElement): HTMLButtonElement {
  return el.shadowRoot!.querySelector('button[type="submit"]')!;
}

/** Focuses the field and types `text` key by key (real keyboard events). */
export async function typeInto(el: HTMLElement, name: string, text: string): Promise<void> {
  inputOf(el, name).focus();
  await sendKeys({type: text});
}

export async function press(key: string): Promise<void> {
  await sendKeys({press: key});
}

export const VISA = '4242424242424242';
export const CVV = '737';

/** An expiry two years ahead, as typed digits and as the year number. */
export function futureExpiry(): {typed: string; month: number; year: number} {
  const year = new Date().getFullYear() + 2;
  return {typed: `12${String(year % 100).padStart(2, '0')}`, month: 12, year};
}

export async function fillCard(el: PgCardForm, number = VISA, cvv = CVV): Promise<void> {
  await typeInto(el, 'number', number);
  await typeInto(el, 'expiry', futureExpiry().typed);
  await typeInto(el, 'cvv', cvv);
  await el.updateComplete;
}

/** Every attribute value in the element, its shadow tree and nested shadow trees. */
export function allAttributeText(root: Element | ShadowRoot): string {
  const parts: string[] = [];
  const walk = (node: Element | ShadowRoot) => {
    if (node instanceof Element) for (const a of node.attributes) parts.push(a.value);
    for (const child of node.children) walk(child);
    if (node instanceof Element && node.shadowRoot) walk(node.shadowRoot);
  };
  walk(root);
  return parts.join('\n');
}

/** Records every `pg-*` event reaching `document` until `stop()`. */
export function recordEvents(names: string[]) {
  const events: Event[] = [];
  const listener = (e: Event) => events.push(e);
  for (const n of names) document.addEventListener(n, listener);
  return {
    events,
    stop() {
      for (const n of names) document.removeEventListener(n, listener);
    },
  };
}

export const ALL_EVENTS = [
  'pg-validity-change',
  'pg-brand-change',
  'pg-submit',
  'pg-success',
  'pg-failure',
  'pg-3ds-required',
  'pg-3ds-cancel',
  'pg-error',
];

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the next `type` event reaching `target`: a deferred promise, no polling. */
export function once<E extends Event = Event>(target: EventTarget, type: string): Promise<E> {
  return new Promise((resolve) =>
    target.addEventListener(type, (e) => resolve(e as E), {once: true}),
  );
}

/** What `until` is waiting for now, named if the test times out meanwhile. */
let waitingFor: string | undefined;

/**
 * Waits until `predicate` holds, looking every 10 ms. No deadline of its own: a bound on
 * the wall clock failed tests on a loaded machine (three engines on two busy cores), not
 * for a fault; one that never holds is ended by the test's timeout
 * (web-test-runner.config.mjs), and the hook below names `what` it waited for.
 */
export async function until(predicate: () => boolean, what = 'a condition'): Promise<void> {
  waitingFor = what;
  try {
    while (!predicate()) await tick(10);
  } finally {
    waitingFor = undefined;
  }
}

afterEach(function () {
  if (this.currentTest?.state === 'failed' && waitingFor) {
    console.error(`${this.currentTest.fullTitle()}: timed out waiting for ${waitingFor}`);
    waitingFor = undefined;
  }
});

/** The brand mark in `el`'s number field, once shown: the marks load on demand. */
export async function markOf(el: HTMLElement): Promise<SVGSVGElement> {
  const mark = () => el.shadowRoot!.querySelector<SVGSVGElement>('[part="brand"]');
  await until(() => mark() !== null, 'the brand mark');
  return mark()!;
}

/**
 * Calls `configure` with `<pg-card-form>`'s built-in `<pg-3ds-redirect>` the moment it is
 * rendered (only once a payment needs it), before the form hands it any work.
 */
export function onBuiltInRedirect(
  el: PgCardForm,
  configure: (redirect: PgThreeDSRedirect) => void,
): MutationObserver {
  const observer = new MutationObserver(() => {
    const redirect = el.shadowRoot!.querySelector('pg-3ds-redirect');
    if (redirect) {
      observer.disconnect();
      configure(redirect);
    }
  });
  observer.observe(el.shadowRoot!, {childList: true});
  return observer;
}
