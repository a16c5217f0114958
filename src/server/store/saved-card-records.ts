/**
 * Saved cards: what the companion keeps per card a customer chose to save, the store
 * methods that keep it (part of every `PaymentStore`), and the pure rules around it —
 * minting the opaque id, reading the gateway's token expiry, and what the browser may see
 * of a saved card (never the token). The payment store holds one row per saved card:
 * customer id, opaque id, the gateway's token, mask, brand (told from the mask by the
 * form's own brand rule, `card-brand.ts`), token expiry, created and deleted times. Card
 * numbers and security codes are never stored: there is no field for them. A removed card
 * keeps its row (for the record) but loses its token.
 */
import {randomBytes} from 'node:crypto';
import type {SavedCardView} from '../../protocol/checkout.js';
import {EARLIEST_ZONE_MS} from '../../rules/card.js';

/** One saved card of one customer. */
export interface SavedCardRecord {
  /** Opaque id the browser sees (`sc_` + 24 hex digits); unique. */
  id: string;
  /** The merchant's customer id (`resolveOrder`'s `customer.id`). */
  customerId: string;
  /** The gateway's `cc_token`; `''` once the card is removed. */
  token: string;
  /** Masked number as the gateway gave it (`424242******4242`). */
  mask: string;
  /**
   * The brand its first six digits tell (`visa`, `mastercard`, `american-express`, ...:
   * credit-card-type's `type`, as the form names brands); absent when they tell none.
   */
  brand?: string;
  /**
   * The gateway's `cc_token_expiration`, as sent (`2028-12-31T23:59:59`, the gateway's local
   * time): see `tokenExpiryMs`.
   */
  tokenExpiresAt: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds; set once the card is removed. */
  deletedAt?: number;
}

/** The saved-card part of the payment store. Every method is atomic. */
export interface SavedCardStore {
  /**
   * Stores `card`, unless its customer already has a live (not removed) card with the same
   * token: then nothing is written and that card is returned (saving is idempotent, so a
   * webhook and a lookup reporting the same payment save it once).
   */
  saveCard(card: SavedCardRecord): Promise<SavedCardRecord>;
  /** The card with this id, removed or not, whoever's it is. */
  getSavedCard(id: string): Promise<SavedCardRecord | undefined>;
  /** Live cards of `customerId` (every customer's when absent), oldest first. */
  listSavedCards(customerId?: string): Promise<SavedCardRecord[]>;
  /**
   * Removes the customer's card: sets `deletedAt` and forgets the token. False when the
   * customer has no live card with this id (another customer's card is never touched).
   */
  deleteSavedCard(customerId: string, id: string, at: number): Promise<boolean>;
}

/** A new opaque saved-card id. */
export function newSavedCardId(): string {
  return `sc_${randomBytes(12).toString('hex')}`;
}

const EXPIRY = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;
/** The whole expiry: date, optional time (fractions ignored), optional offset. */
const EXPIRY_FULL =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The first instant (epoch ms) at which the token no longer pays, or `undefined` when the
 * text is not a timestamp. The gateway writes `cc_token_expiration` in its local time
 * without an offset (gateway-spec.md, "Conventions"), and a card is valid through the end
 * of its month: so the token is valid through the end of the second it names (of the day,
 * for a date alone), and — the gateway's zone being unstated — until that moment has
 * passed in the earliest time zone, UTC−12, as the form's card expiry rule reads a month
 * (`src/rules/card.ts`). The gateway still refuses a token it holds expired. An explicit
 * offset (`Z`, `+02:00`), should the gateway send one, is honoured exactly.
 */
export function tokenExpiryMs(text: string): number | undefined {
  const m = EXPIRY_FULL.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0', zone] = m;
  if (+mo! < 1 || +mo! > 12 || +d! < 1 || +d! > new Date(Date.UTC(+y!, +mo!, 0)).getUTCDate()) {
    return undefined;
  }
  if (h !== undefined && (+h > 23 || +mi! > 59 || +s > 59)) return undefined;
  // The end of the named second, or of the named day.
  const end =
    h === undefined
      ? Date.UTC(+y!, +mo! - 1, +d! + 1)
      : Date.UTC(+y!, +mo! - 1, +d!, +h, +mi!, +s + 1);
  if (zone === undefined) return end + EARLIEST_ZONE_MS;
  if (zone === 'Z') return end;
  const [, sign, zh, zm] = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  return end - (sign === '-' ? -1 : 1) * (+zh! * 60 + +zm!) * 60_000;
}

/** True when the token can no longer pay at `now` (an unreadable expiry counts as expired). */
export function tokenExpired(card: Pick<SavedCardRecord, 'tokenExpiresAt'>, now: number): boolean {
  const end = tokenExpiryMs(card.tokenExpiresAt);
  return end === undefined || now >= end;
}

/** What the browser sees of a saved card: never the token. */
export function savedCardView(card: SavedCardRecord, now: number): SavedCardView {
  const m = EXPIRY.exec(card.tokenExpiresAt);
  return {
    id: card.id,
    mask: card.mask,
    ...(card.brand ? {brand: card.brand} : {}),
    expMonth: m ? +m[2]! : 1,
    expYear: m ? +m[1]! : 2000,
    expired: tokenExpired(card, now),
  };
}

/** What the merchant's API and back office see of a saved card: never the token either. */
export interface SavedCardSummary extends SavedCardView {
  customerId: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

export function savedCardSummary(card: SavedCardRecord, now: number): SavedCardSummary {
  return {...savedCardView(card, now), customerId: card.customerId, createdAt: card.createdAt};
}
