/**
 * Sends each payment update (`onPaymentUpdate`) on to another service as a JSON POST, the
 * way a shop tells its fulfilment system (`PAYMENT_UPDATES_URL`). Anything but a 2xx
 * answer throws, so the companion keeps the update in its outbox and delivers it again;
 * the receiver deduplicates by `updateId`. The `X-Instance` header names the instance
 * that delivered it.
 */
import type {PaymentUpdate} from '../src/server/index.js';

export function forwardUpdates(
  url: string,
  instance: string,
  timeoutMs = 10_000,
): (update: PaymentUpdate) => Promise<void> {
  return async function forwardUpdate(update) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {'Content-Type': 'application/json', 'X-Instance': instance},
      body: JSON.stringify(update),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`payment update receiver answered ${res.status}`);
  };
}
