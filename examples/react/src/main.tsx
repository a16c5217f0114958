import {StrictMode} from 'react';
import {createRoot} from 'react-dom/client';
import {Checkout} from './Checkout.js';

// The merchant's server puts the order on the page's address: /?order=<orderRef>.
const orderRef = new URLSearchParams(window.location.search).get('order') ?? '';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Checkout orderRef={orderRef} endpoint="/checkout/pay" />
  </StrictMode>,
);
