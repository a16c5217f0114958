// checkout-page.tsx — the checkout page in React: `<PgCardForm>` from pg-checkout/react, its
// event props keeping the outcome in React state (the form announces it to screen readers).
import 'pg-checkout'; // defines the elements, before the first render
import {StrictMode, useState} from 'react';
import {createRoot} from 'react-dom/client';
import {PgCardForm} from 'pg-checkout/react';
import type {PgSuccessDetail} from 'pg-checkout';

type Outcome = {kind: 'paid'; detail: PgSuccessDetail} | {kind: 'problem'; message: string};

function Checkout({orderRef}: {orderRef: string}) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return (
    <main>
      <h1>Order {orderRef}</h1>
      <PgCardForm
        endpoint="/checkout/pay"
        orderRef={orderRef}
        onPgSuccess={(event) => setOutcome({kind: 'paid', detail: event.detail})}
        onPgFailure={(event) => setOutcome({kind: 'problem', message: event.detail.message})}
        onPgError={(event) => setOutcome({kind: 'problem', message: event.detail.message})}
      />
      <p data-outcome={outcome?.kind ?? 'none'}>
        {outcome?.kind === 'paid'
          ? outcome.detail.alreadyPaid
            ? `Already paid: order ${outcome.detail.orderRef}, nothing was charged`
            : `Paid: order ${outcome.detail.orderRef}, card ${outcome.detail.cardMask ?? ''}`
          : (outcome?.message ?? '')}
      </p>
    </main>
  );
}

// The order in the address (`/?order=ORDER-1002`), else the first test order.
const orderRef = new URLSearchParams(location.search).get('order') ?? 'ORDER-1001';
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Checkout orderRef={orderRef} />
  </StrictMode>,
);
