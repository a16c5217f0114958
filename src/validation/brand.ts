/**
 * Which card brand a number belongs to, from credit-card-type's table of brands (the one
 * card-validator reads) and its matching and best-match steps, the brands tried in the
 * order card-validator tries them. Only those modules, not the packages' entries: the
 * credit-card-type entry adds an API for changing the table at run time (`addCard`,
 * `changeOrder`, …) that the form never calls and a bundler cannot drop, and
 * card-validator's `cardNumber` adds a Luhn check that the project's own rule
 * (src/rules/card.ts) makes anyway. The answer is card-validator's `cardNumber(digits).card`: the one brand
 * the digits can still be, else null (test/node/validation/brand.test.ts compares them).
 */
import cardTypes from 'credit-card-type/dist/lib/card-types.js';
import {addMatchingCardsToResults} from 'credit-card-type/dist/lib/add-matching-cards-to-results.js';
import {findBestMatch} from 'credit-card-type/dist/lib/find-best-match.js';
import type {CreditCardType} from 'credit-card-type/dist/types.js';
import type {CardBrand} from './card.js';

/** credit-card-type's test order (its entry's `ORIGINAL_TEST_ORDER`), which breaks ties. */
const TEST_ORDER = [
  'visa',
  'mastercard',
  'american-express',
  'diners-club',
  'discover',
  'troy',
  'jcb',
  'unionpay',
  'naranja',
  'verve',
  'maestro',
  'elo',
  'mir',
  'hiper',
  'hipercard',
] as const;

/** The one brand `digits` (ASCII digits) can be, or null: none, or several still. */
export function brandOf(digits: string): CreditCardType | null {
  if (!/^\d+$/.test(digits)) return null;
  const results: CreditCardType[] = [];
  for (const type of TEST_ORDER) addMatchingCardsToResults(digits, cardTypes[type]!, results);
  return findBestMatch(results) ?? (results.length === 1 ? results[0]! : null);
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
  return (TEST_ORDER as readonly string[]).includes(type)
    ? toCardBrand(cardTypes[type] ?? null)
    : null;
}
