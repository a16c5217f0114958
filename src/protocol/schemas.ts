/**
 * Zod schemas for the bodies of the checkout protocol (`./checkout.ts`), used by the
 * merchant's server to validate what the card form sends. Each schema is checked at
 * compile time against its type in `checkout.ts`, so the protocol cannot drift between the
 * two sides. Error messages name the rule and never contain the value (card data is never
 * echoed).
 *
 * Server-side only: the browser bundle never imports this module (it would pull zod in).
 */
import * as z from 'zod';
import type {
  AbandonRequest,
  CardInput,
  ClientFingerprint,
  CustomerInput,
  PayRequest,
} from './checkout.js';
import {luhnValid} from './luhn.js';

/** Order references and attempt ids: short, URL-safe text (they end up in gateway ids and URLs). */
export const REFERENCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** Longest order reference accepted; leaves room in the gateway's 256-character `order_id`. */
export const MAX_ORDER_REF_LENGTH = 128;
/** Longest attempt id accepted. */
export const MAX_ATTEMPT_ID_LENGTH = 128;

const reference = (max: number, what: string) =>
  z
    .string({error: `must be ${what}`})
    .min(1, {message: 'must not be empty'})
    .max(max, {message: `must be at most ${max} characters`})
    .regex(REFERENCE_PATTERN, {
      message: 'may contain only letters, digits and . _ : - (starting with a letter or digit)',
    });

export const OrderRefSchema = reference(MAX_ORDER_REF_LENGTH, 'an order reference');
export const AttemptIdSchema = reference(MAX_ATTEMPT_ID_LENGTH, 'an attempt id');

const CARD_NUMBER_RULE = 'must be a card number of 12 to 19 digits';

export const CardInputSchema = z.strictObject({
  number: z
    .string({error: CARD_NUMBER_RULE})
    .regex(/^\d{12,19}$/, {message: CARD_NUMBER_RULE})
    .refine(luhnValid, {message: 'is not a valid card number (Luhn check)'}),
  expMonth: z
    .number({error: 'must be a month from 1 to 12'})
    .int({message: 'must be a month from 1 to 12'})
    .min(1, {message: 'must be a month from 1 to 12'})
    .max(12, {message: 'must be a month from 1 to 12'}),
  expYear: z
    .number({error: 'must be a four-digit year'})
    .int({message: 'must be a four-digit year'})
    .min(1000, {message: 'must be a four-digit year'})
    .max(9999, {message: 'must be a four-digit year'}),
  cvv: z.string({error: 'must be 3 or 4 digits'}).regex(/^\d{3,4}$/, {
    message: 'must be 3 or 4 digits',
  }),
  holder: z
    .string({error: 'must be text'})
    .max(128, {message: 'must be at most 128 characters'})
    .optional(),
}) satisfies z.ZodType<CardInput>;

const optionalText = (max: number) =>
  z
    .string({error: 'must be text'})
    .max(max, {message: `must be at most ${max} characters`})
    .optional();

export const CustomerInputSchema = z.strictObject({
  firstName: optionalText(256),
  lastName: optionalText(256),
  email: optionalText(256),
  phone: optionalText(32),
}) satisfies z.ZodType<CustomerInput>;

const fingerprintValue = (max: number) =>
  z.string({error: 'must be a string'}).max(max, {message: `must be at most ${max} characters`});

export const ClientFingerprintSchema = z.strictObject({
  browserColorDepth: fingerprintValue(2),
  browserScreenHeight: fingerprintValue(6),
  browserScreenWidth: fingerprintValue(6),
  browserJavaEnabled: fingerprintValue(5),
  browserLanguage: fingerprintValue(35),
  browserTimeZone: fingerprintValue(64),
  browserTimeZoneOffset: fingerprintValue(5),
  browserUserAgent: fingerprintValue(2048),
}) satisfies z.ZodType<ClientFingerprint>;

/** Body of `POST /pay`: strict, an unknown key is an error that names it. */
export const PayRequestSchema = z.strictObject({
  orderRef: OrderRefSchema,
  attemptId: AttemptIdSchema,
  card: CardInputSchema,
  customer: CustomerInputSchema.optional(),
  fingerprint: ClientFingerprintSchema,
}) satisfies z.ZodType<PayRequest>;

/** Body of `POST /abandon`. */
export const AbandonRequestSchema = z.strictObject({
  orderRef: OrderRefSchema,
  attemptId: AttemptIdSchema,
}) satisfies z.ZodType<AbandonRequest>;

// Compile-time check in the other direction: every field of the protocol types is in the
// schemas, with the same type (`satisfies` alone would let the schema drop an optional key).
type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const payRequestMatches: Equals<z.output<typeof PayRequestSchema>, PayRequest> = true;
const abandonMatches: Equals<z.output<typeof AbandonRequestSchema>, AbandonRequest> = true;
const cardMatches: Equals<z.output<typeof CardInputSchema>, CardInput> = true;
const customerMatches: Equals<z.output<typeof CustomerInputSchema>, CustomerInput> = true;
const fingerprintMatches: Equals<
  z.output<typeof ClientFingerprintSchema>,
  ClientFingerprint
> = true;
void [payRequestMatches, abandonMatches, cardMatches, customerMatches, fingerprintMatches];
