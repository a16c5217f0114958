/**
 * The checkout elements in Solid JSX, typed by `pg-checkout/jsx/solid`. Type-checked by
 * test/node/frameworks/types.test.ts (`jsx: "preserve"`, `jsxImportSource: "solid-js"`);
 * every `@ts-expect-error` line must be refused.
 */
import type {} from 'pg-checkout/jsx/solid';
import type {PgCardForm} from 'pg-checkout';

export function Checkout(props: {orderRef: string}) {
  let form: PgCardForm | undefined;
  return (
    <div>
      <pg-card-form
        ref={form}
        class="checkout"
        order-ref={props.orderRef}
        endpoint="/checkout/pay"
        attr:three-ds-mode="iframe"
        holder-name
        messages={{pay: 'Pay now'}}
        on:pg-success={(event) => console.warn(event.detail.orderRef, event.currentTarget.orderRef)}
      />
      {/* @ts-expect-error camelCase props are not attributes */}
      <pg-card-form orderRef={props.orderRef} />
      {/* @ts-expect-error Solid would set a threeDsMode property: attr: form only */}
      <pg-card-form three-ds-mode="iframe" />
      {/* @ts-expect-error not a 3-D Secure mode */}
      <pg-card-form attr:three-ds-mode="popup" />
      {/* @ts-expect-error a boolean attribute takes a boolean */}
      <pg-card-form holder-name="yes" />
      <pg-3ds-redirect resolve poll-interval={500} navigate={(url) => console.warn(url)} />
      {/* @ts-expect-error the poll interval is a number */}
      <pg-3ds-redirect poll-interval="fast" />
      <pg-fingerprint name="fingerprint" />
    </div>
  );
}
