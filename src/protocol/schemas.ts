/**
 * Zod schemas for the bodies of the checkout protocol (`./checkout.ts`), used by the
 * merchant's server to validate what the card form sends. Each schema is checked at
 * compile time against its type in `checkout.ts`, so the protocol cannot drift between the
 * two sides. Card and customer fields are checked with the field rules of `src/rules/`,
 * the ones the card form and the gateway model use: a body passes exactly when the form
 * would have sent it and the gateway model will take what the server builds from it.
 * What the rules normalise (spaces in a card number, separators in a phone, white space
 * around a name or address) is normalised here too, so the parsed body holds what goes on
 * the wire. Error messages name the rule and never contain the value (card data is never
 * echoed).
 *
 * The answers (`PayResponseSchema`, `StatusResponseSchema`) are here too, for the tests and
 * for clients that check what a companion says: a failure always carries its reason code.
 *
 * Server-side only: the browser bundle never imports this module (it would pull zod in).
 */
import * as z from 'zod';
import {
  PAYMENT_STATES,
  PAY_FAILURE_REASONS,
  type AbandonRequest,
  type CardInput,
  type ClientFingerprint,
  type CustomerInput,
  type OrderRequest,
  type OrderResponse,
  type PayResponse,
  type PayRequest,
  type RemoveSavedCardRequest,
  type SavedCardView,
  type StatusResponse,
} from './checkout.js';
import {
  checkCardNumber,
  checkCvv,
  EXP_YEAR_MAX,
  EXP_YEAR_MIN,
  cardNotExpired,
  type RuleResult,
} from '../rules/card.js';
import {
  checkEmail,
  checkName,
  checkPhone,
  HOLDER_MAX_LENGTH,
  NAME_MAX_LENGTH,
  PHONE_MAX_DIGITS,
  PHONE_MIN_DIGITS,
} from '../rules/customer.js';

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

/**
 * A string field checked by a rule of `src/rules/`: parsed to the rule's normalised value,
 * or refused with the message for the rule's problem (never the value).
 */
const ruled = <P extends string>(
  check: (text: string) => RuleResult<string, P>,
  messages: Readonly<Record<P, string>>,
  typeMessage: string,
) =>
  z.string({error: typeMessage}).transform((text, ctx) => {
    const result = check(text);
    if (result.ok) return result.value;
    ctx.addIssue({code: 'custom', message: messages[result.problem]});
    return z.NEVER;
  });

const CARD_NUMBER_RULE = 'must be a card number of 12 to 19 digits';
const MONTH_RULE = 'must be a month from 1 to 12';
const YEAR_RULE = `must be a four-digit year from ${EXP_YEAR_MIN} to ${EXP_YEAR_MAX}`;
const CVV_RULE = 'must be 3 or 4 digits';

const nameMessages = (max: number) => ({
  required: 'must not be empty',
  'too-long': `must be at most ${max} characters`,
});

export const CardInputSchema = z
  .strictObject({
    number: ruled(
      checkCardNumber,
      {
        required: CARD_NUMBER_RULE,
        characters: `${CARD_NUMBER_RULE} (spaces and dashes between them are allowed)`,
        length: CARD_NUMBER_RULE,
        luhn: 'is not a valid card number (Luhn check)',
      },
      CARD_NUMBER_RULE,
    ),
    expMonth: z
      .number({error: MONTH_RULE})
      .int({message: MONTH_RULE})
      .min(1, {message: MONTH_RULE})
      .max(12, {message: MONTH_RULE}),
    expYear: z
      .number({error: YEAR_RULE})
      .int({message: YEAR_RULE})
      .min(EXP_YEAR_MIN, {message: YEAR_RULE})
      .max(EXP_YEAR_MAX, {message: YEAR_RULE}),
    cvv: ruled(checkCvv, {required: CVV_RULE, invalid: CVV_RULE}, CVV_RULE),
    holder: ruled(
      (text) => checkName(text, HOLDER_MAX_LENGTH),
      nameMessages(HOLDER_MAX_LENGTH),
      'must be text',
    ).optional(),
  })
  .superRefine((card, ctx) => {
    // The card is usable through the last day of its month, in the earliest time zone.
    if (!cardNotExpired(card.expMonth, card.expYear)) {
      ctx.addIssue({code: 'custom', path: ['expYear'], message: 'the card has expired'});
    }
  }) satisfies z.ZodType<CardInput>;

const customerName = () =>
  ruled(checkName, nameMessages(NAME_MAX_LENGTH), 'must be text').optional();

export const CustomerInputSchema = z.strictObject({
  firstName: customerName(),
  lastName: customerName(),
  email: ruled(
    checkEmail,
    {
      required: 'must not be empty',
      latin: "must be an email address in ASCII (Latin letters, digits, . _ ' + -)",
      format: 'must be an email address (name@example.com)',
    },
    'must be text',
  ).optional(),
  phone: ruled(
    checkPhone,
    {
      required: 'must not be empty',
      characters:
        'must be a phone number: digits with an optional leading + (spaces, dots, dashes and parentheses are removed)',
      'too-short': `must have at least ${PHONE_MIN_DIGITS} digits`,
      'too-long': `must have at most ${PHONE_MAX_DIGITS} digits`,
    },
    'must be text',
  ).optional(),
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
  // An HTTP header value: visible ASCII and spaces (RFC 9110), what the gateway may be sent.
  browserAcceptHeader: fingerprintValue(2048)
    .regex(/^[\x20-\x7e]*$/, {message: 'must be an HTTP header value'})
    .optional(),
}) satisfies z.ZodType<ClientFingerprint>;

/** Saved-card ids as the companion mints them: `sc_` and 24 lowercase hex digits. */
export const SAVED_CARD_ID_PATTERN = /^sc_[0-9a-f]{24}$/;
export const SavedCardIdSchema = z
  .string({error: 'must be a saved card id'})
  .regex(SAVED_CARD_ID_PATTERN, {message: 'must be a saved card id (sc_ and 24 hex digits)'});

/**
 * Body of `POST /pay`: strict, an unknown key is an error that names it. A card typed in
 * (`card`, optionally `saveCard`) or a saved card (`savedCardId`), never both.
 */
export const PayRequestSchema = z
  .strictObject({
    orderRef: OrderRefSchema,
    attemptId: AttemptIdSchema,
    card: CardInputSchema.optional(),
    savedCardId: SavedCardIdSchema.optional(),
    saveCard: z.boolean({error: 'must be true or false'}).optional(),
    customer: CustomerInputSchema.optional(),
    fingerprint: ClientFingerprintSchema,
  })
  .superRefine((body, ctx) => {
    if (body.card === undefined && body.savedCardId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['card'],
        message: 'is required: a payment carries card data or a savedCardId',
      });
    } else if (body.card !== undefined && body.savedCardId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['savedCardId'],
        message: 'must not be sent with card: pay with card data or a saved card',
      });
    } else if (body.saveCard !== undefined && body.card === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['saveCard'],
        message: 'is only for a card typed in (with card)',
      });
    }
  }) satisfies z.ZodType<PayRequest>;

/** Body of `POST /order`. */
export const OrderRequestSchema = z.strictObject({
  orderRef: OrderRefSchema,
  savedCards: z.boolean({error: 'must be true or false'}).optional(),
}) satisfies z.ZodType<OrderRequest>;

/** Body of `POST /saved-cards/remove`. */
export const RemoveSavedCardRequestSchema = z.strictObject({
  orderRef: OrderRefSchema,
  savedCardId: SavedCardIdSchema,
}) satisfies z.ZodType<RemoveSavedCardRequest>;

export const SavedCardViewSchema = z.strictObject({
  id: z.string().regex(SAVED_CARD_ID_PATTERN),
  mask: z.string(),
  brand: z.string().min(1).max(32).optional(),
  expMonth: z.number().int().min(1).max(12),
  expYear: z.number().int(),
  expired: z.boolean(),
}) satisfies z.ZodType<SavedCardView>;

/** Body of the answer of `POST /order`: no token field can pass (strict). */
export const OrderResponseSchema = z.strictObject({
  orderRef: z.string(),
  amount: z.string(),
  currency: z.string(),
  savedCards: z.array(SavedCardViewSchema).optional(),
}) satisfies z.ZodType<OrderResponse>;

/** Body of `POST /abandon`. */
export const AbandonRequestSchema = z.strictObject({
  orderRef: OrderRefSchema,
  attemptId: AttemptIdSchema,
}) satisfies z.ZodType<AbandonRequest>;

/** Why a payment failed: one of the protocol's stable codes. */
export const PayFailureReasonSchema = z.enum(PAY_FAILURE_REASONS);

/** Body of a `200` answer of `POST /pay`. */
export const PayResponseSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.literal('success'),
    orderRef: z.string(),
    code: z.string(),
    message: z.string(),
    cardMask: z.string().optional(),
    alreadyPaid: z.literal(true).optional(),
    cardSaved: z.literal(false).optional(),
  }),
  z.strictObject({
    outcome: z.literal('failure'),
    orderRef: z.string(),
    code: z.string(),
    reason: PayFailureReasonSchema,
    message: z.string(),
  }),
  z.strictObject({
    outcome: z.literal('3ds_required'),
    orderRef: z.string(),
    userActionUrl: z.string(),
  }),
  z.strictObject({outcome: z.literal('processing'), orderRef: z.string(), message: z.string()}),
]) satisfies z.ZodType<PayResponse>;

/** Body of `GET /status` (and of `POST /abandon`). */
export const StatusResponseSchema = z.strictObject({
  orderRef: z.string(),
  state: z.enum(PAYMENT_STATES),
  final: z.boolean(),
  code: z.string().optional(),
  reason: PayFailureReasonSchema.optional(),
  message: z.string().optional(),
  userActionUrl: z.string().optional(),
}) satisfies z.ZodType<StatusResponse>;

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
const payResponseMatches: Equals<z.output<typeof PayResponseSchema>, PayResponse> = true;
const statusMatches: Equals<z.output<typeof StatusResponseSchema>, StatusResponse> = true;
const orderRequestMatches: Equals<z.output<typeof OrderRequestSchema>, OrderRequest> = true;
const orderResponseMatches: Equals<z.output<typeof OrderResponseSchema>, OrderResponse> = true;
const removeMatches: Equals<
  z.output<typeof RemoveSavedCardRequestSchema>,
  RemoveSavedCardRequest
> = true;
void [
  orderRequestMatches,
  orderResponseMatches,
  removeMatches,
  payRequestMatches,
  abandonMatches,
  cardMatches,
  customerMatches,
  fingerprintMatches,
  payResponseMatches,
  statusMatches,
];
