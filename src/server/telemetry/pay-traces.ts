/**
 * The span context of each order's last pay request this process served, so the webhook
 * that follows can join its trace (`Telemetry.tagOrder`): at most `PAY_TRACES_KEPT`
 * orders, the oldest forgotten first. Only ids are kept (no attribute, nothing of the
 * card). A webhook that reaches another instance than the pay request did stays in its own
 * trace, found by the order reference.
 */
import type {SpanContext} from '@opentelemetry/api';

export class PayTraces {
  readonly #byOrder = new Map<string, SpanContext>();

  get(orderRef: string): SpanContext | undefined {
    return this.#byOrder.get(orderRef);
  }

  set(orderRef: string, context: SpanContext): void {
    this.#byOrder.delete(orderRef);
    this.#byOrder.set(orderRef, context);
    if (this.#byOrder.size > PAY_TRACES_KEPT) {
      this.#byOrder.delete(this.#byOrder.keys().next().value!);
    }
  }
}

/** How many orders' pay traces a process keeps for their webhooks. */
export const PAY_TRACES_KEPT = 10_000;
