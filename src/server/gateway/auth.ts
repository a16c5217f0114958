/**
 * Request authentication, as pluggable strategies. The gateway's endpoints are listed once
 * here (`GATEWAY_ENDPOINTS`) so the client and the sandbox agree on paths and on which
 * header variant each endpoint shows in the spec.
 *
 * - `plainAuth` (the default) is what every public integration sends and the live gateway
 *   accepts: `X-API-Auth: CPAY <API_KEY>:<API_SECRET>` plus `X-API-Key: <ENDPOINTS_KEY>`.
 * - `hmacAuth` produces the spec's `CPAY-HMAC-SHA1`, `CPAY-HMAC` and `CPAY` signature forms
 *   per endpoint. The spec does not say how the signature is computed: the recipe here,
 *   {@link assumedHmacSignature}, is an ASSUMPTION (hex HMAC-SHA1 of method, path and body,
 *   40 hex characters like the one example) and a caller can replace it.
 *
 * `verifyRequestAuth` is the receiving side, used by the sandbox.
 */
import {createHmac, timingSafeEqual} from 'node:crypto';

/** Every endpoint of the gateway: method and path template. */
export const GATEWAY_ENDPOINTS = {
  createPayment: {method: 'POST', path: '/api/v1/payment'},
  cancelOrder: {method: 'POST', path: '/api/v1/pos/:posId/order/:orderId/cancel'},
  getOperation: {method: 'GET', path: '/api/v1/pos/:posId/orders/:orderId/:operation'},
  resendWebhook: {method: 'GET', path: '/api/v1/pos/:posId/orders/:orderId/:operation'},
  getOrder: {method: 'GET', path: '/api/v1/pos/:posId/orders/:orderId'},
  getSubscriptionTransactions: {method: 'GET', path: '/api/v1/pos/:posId/recurring/:recurringId'},
  getPeriodTransactions: {method: 'GET', path: '/api/v1/pos/:posId/transactions'},
  startRegister: {method: 'POST', path: '/streaming-report/start'},
  fetchRegister: {method: 'GET', path: '/streaming-report/fetch/:reportId'},
  cancelSubscription: {method: 'PUT', path: '/api/v1/recurring/:recurringId/cancel'},
  capture: {method: 'POST', path: '/api/v1/capture'},
  void: {method: 'POST', path: '/api/v1/void'},
  refund: {method: 'POST', path: '/api/v1/refund'},
} as const;
/**
 * The name of a gateway endpoint the client calls (`createPayment`, `getOrder`, `refund`, …), as a
 * {@link SignatureRecipe} receives it.
 */
export type GatewayEndpoint = keyof typeof GATEWAY_ENDPOINTS;

/** Fills a path template: `/orders/:orderId` with `{orderId: 'a b'}` gives `/orders/a%20b`. */
export function endpointPath(
  endpoint: GatewayEndpoint,
  params: Record<string, string> = {},
): string {
  return GATEWAY_ENDPOINTS[endpoint].path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** What a strategy may sign: the endpoint, the HTTP method, the path with its query, the body text. */
export interface SignContext {
  endpoint: GatewayEndpoint;
  method: string;
  /** Path and query as sent, e.g. `/api/v1/pos/.../orders/A1/purchase?callback=true`. */
  pathAndQuery: string;
  /** The exact body text sent, `''` when there is none. */
  body: string;
}

/** The project's credentials. `endpointsKey` is the "endpoints authorization key". */
export interface Credentials {
  apiKey: string;
  apiSecret: string;
  endpointsKey?: string;
}

/** Produces the authentication headers of one request. */
export interface AuthStrategy {
  readonly name: string;
  headers(ctx: SignContext): Record<string, string>;
}

/** The credential scheme word of the gateway. */
export const AUTH_SCHEME = 'CPAY';

function checkCredentials(creds: Credentials): void {
  for (const key of ['apiKey', 'apiSecret'] as const) {
    if (typeof creds?.[key] !== 'string' || creds[key] === '') {
      throw new TypeError(`credentials.${key} is required and must be a non-empty string`);
    }
  }
  if (creds.apiKey.includes(':')) throw new TypeError('credentials.apiKey must not contain ":"');
}

/**
 * The form the live gateway accepts: `X-API-Auth: CPAY <API_KEY>:<API_SECRET>` and
 * `X-API-Key: <ENDPOINTS_KEY>` on every request.
 *
 * @example
 * ```ts
 * import {GatewayClient, plainAuth} from 'pg-checkout/server';
 *
 * const credentials = {apiKey: 'key', apiSecret: 'secret', endpointsKey: 'endpoints-key'};
 * const gateway = new GatewayClient({
 *   baseUrl: 'https://cpay.tranzzo.com',
 *   posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001',
 *   credentials,
 *   auth: plainAuth(credentials), // the default
 * });
 * ```
 */
export function plainAuth(creds: Credentials): AuthStrategy {
  checkCredentials(creds);
  const value = `${AUTH_SCHEME} ${creds.apiKey}:${creds.apiSecret}`;
  return {
    name: 'plain',
    headers: function plainAuthHeaders() {
      const headers: Record<string, string> = {'X-API-Auth': value};
      if (creds.endpointsKey) headers['X-API-Key'] = creds.endpointsKey;
      return headers;
    },
  };
}

/** Computes a request signature from the context and the secret. */
export type SignatureRecipe = (ctx: SignContext, secret: string) => string;

/**
 * ASSUMPTION — no public source says how the gateway computes `<SIGNATURE>`. This recipe is
 * lowercase hex HMAC-SHA1, keyed with the API secret, over
 * `METHOD + "\n" + pathAndQuery + "\n" + body`. Replace it through `hmacAuth({sign})` once
 * the gateway's support confirms the real one.
 */
export const assumedHmacSignature: SignatureRecipe = (ctx, secret) =>
  createHmac('sha1', secret)
    .update(`${ctx.method.toUpperCase()}\n${ctx.pathAndQuery}\n${ctx.body}`)
    .digest('hex');

/** Which header form the spec shows for an endpoint. */
export type HeaderForm = 'hmac-sha1' | 'hmac' | 'signed-plain' | 'secret';

/** The header form the spec shows per endpoint (Authentication, points 1 and 2). */
export function specHeaderForm(endpoint: GatewayEndpoint): HeaderForm {
  switch (endpoint) {
    case 'startRegister':
    case 'fetchRegister':
      return 'signed-plain';
    case 'cancelSubscription':
      return 'hmac';
    case 'cancelOrder':
      return 'secret';
    default:
      return 'hmac-sha1';
  }
}

/**
 * The spec's signed header forms: `CPAY-HMAC-SHA1 key:sig` on most endpoints, `CPAY key:sig`
 * on the register endpoints, `CPAY-HMAC key:sig` on subscription cancel, and `CPAY
 * key:secret` with `X-API-Key` on order cancel. `form` forces one form everywhere.
 *
 * @example
 * ```ts
 * import {hmacAuth} from 'pg-checkout/server';
 *
 * // new GatewayClient({..., auth}): each request signed in the spec's form for its endpoint.
 * const auth = hmacAuth({apiKey: 'key', apiSecret: 'secret', endpointsKey: 'endpoints-key'});
 * ```
 */
export function hmacAuth(
  creds: Credentials,
  opts: {sign?: SignatureRecipe; form?: Exclude<HeaderForm, 'secret'>} = {},
): AuthStrategy {
  checkCredentials(creds);
  const sign = opts.sign ?? assumedHmacSignature;
  return {
    name: 'hmac',
    headers: function hmacAuthHeaders(ctx) {
      const form = opts.form ?? specHeaderForm(ctx.endpoint);
      const credential = form === 'secret' ? creds.apiSecret : sign(ctx, creds.apiSecret);
      const scheme =
        form === 'hmac-sha1'
          ? `${AUTH_SCHEME}-HMAC-SHA1`
          : form === 'hmac'
            ? `${AUTH_SCHEME}-HMAC`
            : AUTH_SCHEME;
      const headers: Record<string, string> = {
        'X-API-Auth': `${scheme} ${creds.apiKey}:${credential}`,
      };
      if (creds.endpointsKey) headers['X-API-Key'] = creds.endpointsKey;
      return headers;
    },
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Result of checking a request's authentication headers. */
export type AuthCheck =
  {ok: true; form: 'plain' | 'hmac-sha1' | 'hmac' | 'signed-plain'} | {ok: false; reason: string};

/**
 * Checks the authentication headers of a received request (the sandbox's side). Accepts
 * the plain form (which needs the endpoints key when one is configured) and every signed
 * form produced with `sign`. Header names are case-insensitive.
 *
 * @example
 * ```ts
 * import {verifyRequestAuth} from 'pg-checkout/server';
 *
 * const headers = new Headers({'X-API-Auth': 'CPAY key:secret', 'X-API-Key': 'endpoints-key'});
 * const check = verifyRequestAuth(
 *   (name) => headers.get(name),
 *   {endpoint: 'createPayment', method: 'POST', pathAndQuery: '/api/v1/payment', body: ''},
 *   {apiKey: 'key', apiSecret: 'secret', endpointsKey: 'endpoints-key'},
 * );
 * console.log(check.ok); // true: the plain form
 * ```
 */
export function verifyRequestAuth(
  header: (name: string) => string | null | undefined,
  ctx: SignContext,
  creds: Credentials,
  sign: SignatureRecipe = assumedHmacSignature,
): AuthCheck {
  const auth = header('x-api-auth');
  if (!auth) return {ok: false, reason: 'missing X-API-Auth header'};
  const m = /^(CPAY(?:-HMAC(?:-SHA1)?)?) ([^:\s]+):(\S+)$/.exec(auth.trim());
  if (!m) return {ok: false, reason: 'malformed X-API-Auth header'};
  const [, scheme, key, credential] = m as unknown as [string, string, string, string];
  if (!safeEqual(key, creds.apiKey)) return {ok: false, reason: 'unknown API key'};
  const endpointsKey = header('x-api-key');
  if (endpointsKey != null && creds.endpointsKey && !safeEqual(endpointsKey, creds.endpointsKey)) {
    return {ok: false, reason: 'wrong X-API-Key'};
  }
  const signatureOk = () => safeEqual(credential, sign(ctx, creds.apiSecret));
  if (scheme === AUTH_SCHEME) {
    if (safeEqual(credential, creds.apiSecret)) {
      if (creds.endpointsKey && endpointsKey == null)
        return {ok: false, reason: 'missing X-API-Key header'};
      return {ok: true, form: 'plain'};
    }
    return signatureOk()
      ? {ok: true, form: 'signed-plain'}
      : {ok: false, reason: 'wrong secret or signature'};
  }
  if (!signatureOk()) return {ok: false, reason: 'wrong signature'};
  return {ok: true, form: scheme === 'CPAY-HMAC' ? 'hmac' : 'hmac-sha1'};
}
