/**
 * The checkout page's card form, rendered on the server (`pg-checkout/ssr`): its fields
 * arrive in the page's HTML, typeable before any script runs, and the hydrating bundle
 * (`pg-checkout-hydrate.js`) takes them over. Its styles are an inline `<style>` in the
 * declarative shadow root: their hash joins the pages' `style-src` (pages.ts), computed once
 * here, since they are the same for every order.
 */
import {renderCardForm, styleHashes} from '../src/ssr.js';
import type {ShopOrder} from './shop.js';

/** `style-src` sources of the server-rendered card form. */
export const CARD_FORM_STYLE_SRC: readonly string[] = await styleHashes(
  await renderCardForm({endpoint: '/', orderRef: '-'}),
);

/** The checkout page's `<pg-card-form>` for `order`, as HTML. */
export function cardFormHtml(order: ShopOrder, checkoutBase: string): Promise<string> {
  return renderCardForm({
    id: 'card-form',
    endpoint: `${checkoutBase}/pay`,
    statusEndpoint: `${checkoutBase}/status`,
    orderRef: order.orderRef,
    amount: order.amount,
    currency: order.currency,
    lang: 'en',
    offerSaveCard: true,
  });
}
