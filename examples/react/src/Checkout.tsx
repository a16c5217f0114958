// examples/react/src/Checkout.tsx: `<PgCardForm>` from `pg-checkout/react`; its event
// props keep the outcome in React state (the form itself announces it to screen readers).
import {useState} from 'react';
import {PgCardForm} from 'pg-checkout/react';
import type {PgSuccessDetail} from 'pg-checkout';

type Outcome = {kind: 'paid'; detail: PgSuccessDetail} | {kind: 'problem'; message: string};

export function Checkout({orderRef, endpoint}: {orderRef: string; endpoint: string}) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return (
    <main>
      <h1>Checkout</h1>
      <PgCardForm
        orderRef={orderRef}
        endpoint={endpoint}
        holderName
        onPgSuccess={(event) => setOutcome({kind: 'paid', detail: event.detail})}
        onPgFailure={(event) => setOutcome({kind: 'problem', message: event.detail.message})}
        onPgError={(event) => setOutcome({kind: 'problem', message: event.detail.message})}
      />
      <p data-outcome={outcome?.kind ?? 'none'}>
        {outcome?.kind === 'paid'
          ? `Paid: order ${outcome.detail.orderRef}, card ${outcome.detail.cardMask ?? ''}`
          : (outcome?.message ?? '')}
      </p>
    </main>
  );
}
