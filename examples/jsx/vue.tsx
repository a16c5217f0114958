/**
 * The checkout elements in Vue TSX and, through `GlobalComponents`, as vue-tsc sees them in
 * templates; typed by `pg-checkout/jsx/vue`. Type-checked by
 * test/node/frameworks/types.test.ts (`jsx: "preserve"`, `jsxImportSource: "vue"`); every
 * `@ts-expect-error` line must be refused.
 */
import type {} from 'pg-checkout/jsx/vue';
import {ref, type GlobalComponents} from 'vue';
import type {PgCardForm} from 'pg-checkout';

export function Checkout({orderRef}: {orderRef: string}) {
  const form = ref<PgCardForm>();
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
        customer-email={null}
        onPgSuccess={(event) => console.warn(event.detail.orderRef)}
        onPg-3ds-required={(event) => event.detail.userActionUrl}
      />
      {/* @ts-expect-error camelCase props are not attributes */}
      <pg-card-form orderRef={orderRef} />
      {/* @ts-expect-error not a 3-D Secure mode */}
      <pg-card-form three-ds-mode="popup" />
      {/* @ts-expect-error Vue writes false as "false", which turns the attribute on */}
      <pg-card-form holder-name={false} />
      {/* @ts-expect-error Vue would listen to "pg3ds-required" */}
      <pg-card-form onPg3dsRequired={() => {}} />
      <pg-3ds-redirect resolve timeout={30_000} />
      <pg-fingerprint name="fingerprint" />
    </div>
  );
}

/** What a template may bind on `<pg-card-form>` (vue-tsc checks templates against this). */
type CardFormProps = InstanceType<GlobalComponents['pg-card-form']>['$props'];
export const inTemplate: CardFormProps = {
  'order-ref': 'A-1001',
  'holder-name': true,
  onPgSuccess: (event) => event.detail.cardMask,
};
// @ts-expect-error not a 3-D Secure mode
export const wrongInTemplate: CardFormProps = {'three-ds-mode': 'popup'};
