/**
 * `<pg-card-form accepted-brands="visa mastercard">`: the brands a merchant takes. A number
 * of another brand is refused under the field as soon as its brand shows (`Mastercard is
 * not accepted.`), and one whose brand the form cannot tell once it is complete, so
 * nothing is sent for a card the merchant would refuse. Brand names are card-validator's
 * types: `visa`, `mastercard`, `american-express`, `diners-club`, `discover`, `jcb`,
 * `unionpay`, `maestro`, `mir`, `elo`, `hiper`, `hipercard`.
 */
import type {CheckoutMessages} from '../i18n/messages.js';
import type {CardBrand} from '../validation/card.js';

/** The brands in an `accepted-brands` value (space or comma separated); empty: any. */
export function acceptedBrandList(value: string | null | undefined): string[] {
  return (value ?? '')
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
}

/**
 * Why a card of `brand` is refused under `accepted` (an `accepted-brands` value), or
 * `undefined`. `complete`: the number is otherwise valid (an unknown brand is refused
 * only then, as more digits could still show an accepted one).
 */
export function brandRefusal(
  accepted: string | null | undefined,
  brand: CardBrand | null,
  complete: boolean,
  t: CheckoutMessages,
): string | undefined {
  const list = acceptedBrandList(accepted);
  if (list.length === 0) return undefined;
  if (brand) {
    return list.includes(brand.type)
      ? undefined
      : t.brandNotAccepted.replace('{brand}', brand.niceType);
  }
  return complete ? t.cardNotAccepted : undefined;
}
