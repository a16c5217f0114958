/**
 * The W3C Trace Context `traceparent` header the elements send on their requests to the
 * companion (pay, abandon, order, 3-D Secure status), so the merchant's tracing — when its
 * server has an OpenTelemetry SDK — runs one trace from the customer's request through the
 * companion's route to the gateway call and the webhook. Each request starts a trace of
 * its own: version `00`, a random 16-byte trace id and 8-byte parent id (`randomId`:
 * `crypto.getRandomValues`, available outside secure contexts too, unlike `randomUUID`;
 * never all zeros, which a receiver must ignore), and the flags `01`, sampled: the browser
 * records no span itself, so the flag only tells the companion's sampler that the caller
 * would keep this trace; the merchant's sampler decides (docs/guides/monitoring.md).
 * Nothing about the customer or the card is in it. Kept this small because every byte
 * counts against the CDN file's gzip budget.
 */
import {randomId} from './async-controller.js';

/** A new `traceparent` value: `00-<32 hex trace id>-<16 hex parent id>-01`. */
export const traceparent = (): string => `00-${randomId()}-${randomId(8)}-01`;
