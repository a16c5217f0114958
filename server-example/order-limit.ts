/**
 * The shop's limit on new orders per client address, shared by the order form and the
 * order API (they count together): answers the seconds to wait when the address is at its
 * limit, and logs the refusal.
 */
import type {Context} from 'hono';
import type {CheckoutLogger} from '../src/server/index.js';
import type {ClientAddresses} from './client-address.js';
import type {Throttle} from './throttle.js';

/** Counts a new order for the request's address; the seconds to wait when it is at the limit. */
export type TakeOrderPlace = (c: Context) => Promise<number | undefined>;

export function orderLimit(
  throttle: Throttle,
  clients: ClientAddresses,
  logger: CheckoutLogger,
): TakeOrderPlace {
  return async function takeOrderPlace(c) {
    const key = clients.key(c);
    const wait = await throttle.take(key);
    if (wait !== undefined) {
      logger.warn({client: key, retryAfter: wait}, 'order refused: too many from one address');
    }
    return wait;
  };
}
