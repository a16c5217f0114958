/// <reference types="pg-checkout/jsx/preact" />
/**
 * The checkout elements in Preact JSX, typed by `pg-checkout/jsx/preact` (loaded here by a
 * triple-slash reference). Type-checked by test/node/frameworks/types.test.ts
 * (`jsxImportSource: "preact"`); every `@ts-expect-error` line must be refused.
 */
import {createRef} from 'preact';
import type {PgCardForm} from 'pg-checkout';

export function Checkout({orderRef}: {orderRef: string}) {
  const form = createRef<PgCardForm>();
  return (
    <div>
      <pg-card-form
        ref={form}
        key={orderRef}
        class="checkout"
        order-ref={orderRef}
        endpoint="/checkout/pay"
        three-ds-mode="iframe"
        holder-name
        onpg-success={(event) => console.warn(event.detail.orderRef)}
        onpg-error={(event) => event.detail.retryable}
      />
      {/* @ts-expect-error camelCase props are not attributes */}
      <pg-card-form orderRef={orderRef} />
      {/* @ts-expect-error not a 3-D Secure mode */}
      <pg-card-form three-ds-mode="popup" />
      {/* @ts-expect-error a boolean attribute takes a boolean */}
      <pg-card-form customer-name="yes" />
      {/* @ts-expect-error pg-error carries a PgErrorEvent */}
      <pg-card-form onpg-error={(event: KeyboardEvent) => event.key} />
      <pg-3ds-redirect resolve timeout={30_000} />
      <pg-fingerprint name="fingerprint" />
    </div>
  );
}
