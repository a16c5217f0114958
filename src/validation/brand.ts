/**
 * Which card brand a number belongs to: card-validator's own answer, `cardNumber(digits)
 * .card` (the one brand the digits can still be, from credit-card-type's table, or null when
 * none or several still can), run from the package at run time. Shared by the form
 * (src/validation/card.ts) and the server, which tells a saved card's brand from its mask
 * (src/server/card-brand.ts), so the two never disagree. A brand the server names
 * (`visa`) is looked up in the same table, through credit-card-type's `getTypeInfo`.
 */
import {cardNumber, type CardNumberVerification} from 'card-validator/dist/card-number.js';
import creditCardType from 'credit-card-type/dist/index.js';
import type {CardBrand} from './card.js';

/** A brand of the table, as card-validator gives it. */
export type CreditCardType = NonNullable<CardNumberVerification['card']>;

/** The one brand `digits` (ASCII digits) can be, or null: none, or several still. */
export function brandOf(digits: string): CreditCardType | null {
  if (!/^\d+$/.test(digits)) return null;
  return cardNumber(digits).card;
}

/** What the form keeps of a brand of the table. */
export function toCardBrand(card: CreditCardType | null): CardBrand | null {
  return card
    ? {
        type: card.type,
        niceType: card.niceType,
        gaps: card.gaps,
        lengths: card.lengths,
        codeName: card.code.name,
        codeSize: card.code.size,
      }
    : null;
}

/**
 * The brand named by its card-validator type (`visa`, `american-express`, …; case and
 * surrounding space ignored), or null for a name not in the table (a saved card's brand
 * as the server names it).
 */
export function brandOfName(name: string): CardBrand | null {
  const type = name.trim().toLowerCase();
  // Only the table's own names: `getTypeInfo` reads any property of its objects.
  return (Object.values(creditCardType.types) as string[]).includes(type)
    ? toCardBrand(creditCardType.getTypeInfo(type))
    : null;
}
