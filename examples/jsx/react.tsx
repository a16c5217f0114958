/**
 * The checkout elements in React 19 JSX: written by hand with `pg-checkout/jsx/react`, and
 * as the `pg-checkout/react` components. Type-checked by test/node/frameworks/types.test.ts
 * (`tsc --strict --noEmit`, `jsxImportSource: "react"`) against the built package; every
 * `@ts-expect-error` line is a mistake the typings must refuse.
 */
import type {} from 'pg-checkout/jsx/react';
import {useRef} from 'react';
import {PgCardForm, PgFingerprint, PgThreeDSRedirect} from 'pg-checkout/react';
import type {PgCardForm as PgCardFormElement, PgSuccessEvent} from 'pg-checkout';

export function Elements({orderRef}: {orderRef: string}) {
  const form = useRef<PgCardFormElement>(null);
  return (
    <>
      <pg-card-form
        ref={form}
        key={orderRef}
        className="checkout"
        order-ref={orderRef}
        endpoint="/checkout/pay"
        three-ds-mode="iframe"
        challenge-window-size="03"
        holder-name
        customer-email={false}
        onpg-success={(event) => console.warn(event.detail.orderRef, event.detail.cardMask)}
        onpg-3ds-required={(event) => event.detail.userActionUrl.startsWith('https:')}
      />
      {/* @ts-expect-error camelCase props are lost in server rendering: attributes only */}
      <pg-card-form orderRef={orderRef} />
      {/* @ts-expect-error not a 3-D Secure mode */}
      <pg-card-form three-ds-mode="popup" />
      {/* @ts-expect-error a boolean attribute takes a boolean */}
      <pg-card-form holder-name="yes" />
      {/* @ts-expect-error pg-success carries a PgSuccessEvent, not a MouseEvent */}
      <pg-card-form onpg-success={(event: MouseEvent) => event.button} />
      <pg-3ds-redirect resolve status-endpoint="/checkout/status" timeout={30_000} no-status />
      {/* @ts-expect-error timeout is a number */}
      <pg-3ds-redirect timeout="30s" />
      <form>
        <pg-fingerprint name="fingerprint" />
      </form>
    </>
  );
}

export function Components({orderRef}: {orderRef: string}) {
  const form = useRef<PgCardFormElement>(null);
  const paid = (event: PgSuccessEvent) => console.warn(event.detail.cardMask);
  return (
    <>
      <PgCardForm
        ref={form}
        className="checkout"
        orderRef={orderRef}
        endpoint="/checkout/pay"
        threeDSMode="iframe"
        holderName
        messages={{pay: 'Pay now'}}
        onPgSuccess={paid}
        onPgFailure={(event) => event.detail.code}
        onPgError={(event) => event.detail.retryable}
        onPg3dsRequired={(event) => event.preventDefault()}
        onPg3dsCancel={(event) => event.waitUntil(Promise.resolve())}
        onPgSubmit={(event) => event.detail.attemptId}
        onPgValidityChange={(event) => event.detail.invalidFields}
        onPgBrandChange={(event) => event.detail.brandName}
      />
      {/* @ts-expect-error not a 3-D Secure mode */}
      <PgCardForm threeDSMode="popup" />
      {/* @ts-expect-error the order reference is a string */}
      <PgCardForm orderRef={42} />
      {/* @ts-expect-error pg-success carries a PgSuccessEvent */}
      <PgCardForm onPgSuccess={(event: MouseEvent) => event.button} />
      {/* @ts-expect-error the card form has no such event */}
      <PgCardForm onPgSuccessful={() => {}} />
      <PgThreeDSRedirect resolve navigate={(url) => console.warn(url)} pollInterval={500} />
      {/* @ts-expect-error navigate takes a URL */}
      <PgThreeDSRedirect navigate={(url: number) => url} />
      <PgFingerprint name="fingerprint" />
    </>
  );
}
