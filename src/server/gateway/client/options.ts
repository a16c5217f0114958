/**
 * The options of `GatewayClient`: their types, the zod check that runs when a client is
 * built (an unknown option or a bad value is a `TypeError` naming it, never showing a
 * secret), and the settings the rest of the client reads, with the defaults filled in.
 */
import * as z from 'zod';
import {plainAuth, type AuthStrategy, type Credentials} from '../auth.js';
import {Uuid} from '../primitives.js';
import {formatIssues, type FieldIssue, type HostedContacts} from '../schemas.js';
import {fetchExchange, nodeExchange, type Exchange} from './exchange.js';

/**
 * The `fetch` the client calls when one is injected. Without one, the client speaks
 * `node:http` on Node (keep-alive, fewer allocations than Node's fetch; see
 * `exchange.ts`) and calls `globalThis.fetch` elsewhere.
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The client's sense of time: `now()` in Unix ms, and `sleep(ms, signal)`, which waits or
 * rejects with the signal's reason when it aborts. It times the waits between attempts of
 * a read, between register fetches, the register deadline and `Retry-After` dates. (The
 * timeout of one HTTP exchange is real time: the network's.) Inject one to run tests on a
 * fake clock.
 */
export interface GatewayClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time: `Date.now` and `setTimeout`. */
export const systemClock: GatewayClock = {
  now: () => Date.now(),
  sleep: function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(function sleepDone() {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      function onAbort() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      signal?.addEventListener('abort', onAbort, {once: true});
    });
  },
};

export type {HostedContacts};

/** Options of `GatewayClient`. */
export interface GatewayClientOptions {
  /** The gateway's base address, e.g. `https://cpay.tranzzo.com` (paths are appended). */
  baseUrl: string;
  /** The project identifier (`POS_ID`), a UUID. Filled into requests that omit `pos_id`. */
  posId: string;
  /**
   * The project's API key and secret, and its endpoints key (`endpointsKey`), which is
   * **required**: it is sent as `X-API-Key` on every request, and the live gateway answers
   * 401 without it.
   */
  credentials: Credentials;
  /** Request authentication; default `plainAuth` of `credentials`. */
  auth?: AuthStrategy;
  /** Time allowed for one HTTP exchange, headers and body, in ms. Default 30000. */
  timeoutMs?: number;
  /** Extra attempts of a GET after a network error, a timeout, a 5xx or a 429. Default 2. */
  retries?: number;
  /** First backoff delay between GET attempts, in ms; doubled each time, with jitter. Default 250. */
  retryDelayMs?: number;
  /** Longest wait between GET attempts, in ms, including a `Retry-After`. Default 10000. */
  maxRetryDelayMs?: number;
  /**
   * `'required'` (the default, as the spec says) or `'optional'`: a hosted payment may
   * then omit `customer_email` and `customer_phone`, as the live gateway allows (the
   * public integrations send hosted requests without them). A value that is sent is
   * checked either way.
   */
  hostedContacts?: HostedContacts;
  fetch?: FetchLike;
  /** The clock of waits and deadlines; default {@link systemClock}. */
  clock?: GatewayClock;
}

const NON_EMPTY = 'must be a non-empty string';
const wholeMs = (message: string) =>
  z.number({error: message}).int({message}).nonnegative({message});

const ClientOptions = z.strictObject({
  baseUrl: z
    .string({error: 'must be an absolute http(s) URL'})
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
      message: 'must be an absolute http(s) URL',
    }),
  posId: Uuid,
  credentials: z.strictObject({
    apiKey: z.string({error: NON_EMPTY}).min(1, {message: NON_EMPTY}),
    apiSecret: z.string({error: NON_EMPTY}).min(1, {message: NON_EMPTY}),
    endpointsKey: z.string({error: NON_EMPTY}).min(1, {message: NON_EMPTY}),
  }),
  auth: z
    .custom<AuthStrategy>(
      (a) =>
        typeof a === 'object' && a !== null && typeof (a as AuthStrategy).headers === 'function',
      {message: 'must be an auth strategy (an object with a headers() function)'},
    )
    .optional(),
  timeoutMs: wholeMs('must be a positive whole number of milliseconds')
    .positive({message: 'must be a positive whole number of milliseconds'})
    .optional(),
  retries: wholeMs('must be a whole number from 0 to 10')
    .max(10, {message: 'must be a whole number from 0 to 10'})
    .optional(),
  retryDelayMs: wholeMs('must be a whole number of milliseconds').optional(),
  maxRetryDelayMs: wholeMs('must be a whole number of milliseconds').optional(),
  hostedContacts: z
    .enum(['required', 'optional'], {error: "must be 'required' or 'optional'"})
    .optional(),
  fetch: z
    .custom<FetchLike>((f) => typeof f === 'function', {message: 'must be a fetch function'})
    .optional(),
  clock: z
    .custom<GatewayClock>(
      (c) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as GatewayClock).now === 'function' &&
        typeof (c as GatewayClock).sleep === 'function',
      {message: 'must be a clock (an object with now() and sleep() functions)'},
    )
    .optional(),
});

/** The checked options with every default filled in. */
export interface ClientSettings {
  baseUrl: string;
  posId: string;
  credentials: Credentials & {endpointsKey: string};
  auth: AuthStrategy;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  hostedContacts: HostedContacts;
  /** One HTTP exchange: the injected `fetch`, else `node:http` on Node, else `fetch`. */
  exchange: Exchange;
  clock: GatewayClock;
}

/** Why an option is required, said where it is missing. */
const WHY_REQUIRED: Record<string, string> = {
  'credentials.endpointsKey':
    'the endpoints key is sent as X-API-Key on every request, and the gateway answers 401 without it',
};

function configError(issues: readonly FieldIssue[]): TypeError {
  const lines = issues.map((i) =>
    i.message === 'is not a field of this request'
      ? `unknown option \`${i.field}\``
      : i.message === 'is required' && WHY_REQUIRED[i.field]
        ? `\`${i.field}\` is required: ${WHY_REQUIRED[i.field]}`
        : `\`${i.field}\` ${i.message}`,
  );
  return new TypeError(`GatewayClient: invalid options: ${lines.join('; ')}`);
}

/** Checks `options` and fills in the defaults; a `TypeError` naming each bad option. */
export function resolveOptions(options: GatewayClientOptions): ClientSettings {
  const parsed = ClientOptions.safeParse(options);
  if (!parsed.success) throw configError(formatIssues(parsed.error, options));
  const o = parsed.data;
  const credentials = {...o.credentials};
  const exchange = o.fetch ? fetchExchange(o.fetch) : defaultExchange();
  return {
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    posId: o.posId,
    credentials,
    auth: o.auth ?? plainAuth(credentials),
    timeoutMs: o.timeoutMs ?? 30_000,
    retries: o.retries ?? 2,
    retryDelayMs: o.retryDelayMs ?? 250,
    maxRetryDelayMs: o.maxRetryDelayMs ?? 10_000,
    hostedContacts: o.hostedContacts ?? 'required',
    exchange,
    clock: o.clock ?? systemClock,
  };
}

/** Without an injected `fetch`: `node:http` on Node, else the global `fetch`. */
function defaultExchange(): Exchange {
  const node = nodeExchange();
  if (node) return node;
  const fetchImpl = globalThis.fetch as FetchLike | undefined;
  if (typeof fetchImpl !== 'function') {
    throw new TypeError('GatewayClient: no fetch available; pass `fetch` in the options');
  }
  return fetchExchange(fetchImpl);
}
