/**
 * The webhooks the gateway posts, read leniently (the parameter list can change without
 * notice): primary and secondary operations and subscription charges, each tagged with its
 * `kind`. Part of the gateway model (`schemas.ts`); `webhook.ts` verifies and decodes them.
 */
import * as z from 'zod';
import {RecordAmount} from './primitives.js';
import {PRIMARY_METHODS, Status} from './enums.js';
import {Fee, LimitInfo, RecurringRef, nullish} from './records.js';

/** Webhook of a primary operation (`purchase`, `auth`, `credit`, `p2p`, `lookup`). */
export const PrimaryWebhook = z.looseObject({
  payment_id: z.string(),
  order_id: z.string(),
  gateway_order_id: nullish(z.string()),
  billing_order_id: nullish(z.string()),
  transaction_id: nullish(z.string()),
  pos_id: z.string(),
  mode: z.string(),
  method: z.enum(PRIMARY_METHODS),
  amount: RecordAmount,
  currency: z.string(),
  payway: nullish(z.string()),
  eci: nullish(z.string()),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  limit_info: nullish(LimitInfo),
  status_description: nullish(z.string()),
  cc_mask: nullish(z.string()),
  cc_token: nullish(z.string()),
  cc_token_expiration: nullish(z.string()),
  customer_id: nullish(z.string()),
  customer_phone: nullish(z.string()),
  fee: nullish(Fee),
  fixed_fee: nullish(Fee),
  percent_fee: nullish(Fee),
  created_at: z.string(),
  processed_at: nullish(z.string()),
  payload: nullish(z.string()),
  receipt_url: nullish(z.string()),
  processed_amount: nullish(RecordAmount),
  processed_currency: nullish(z.string().max(256)),
  recurring: nullish(RecurringRef),
});
export type PrimaryWebhook = z.output<typeof PrimaryWebhook>;

const secondaryWebhookFields = {
  operation_id: z.union([z.string(), z.number().transform(String)]),
  payment_id: z.string(),
  order_id: z.string(),
  transaction_id: nullish(z.string()),
  pos_id: z.string(),
  mode: z.string(),
  amount: RecordAmount,
  currency: z.string(),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  status_description: nullish(z.string()),
  fee: nullish(Fee),
  created_at: z.string(),
  processed_at: nullish(z.string()),
};

export const CaptureWebhook = z.looseObject({
  ...secondaryWebhookFields,
  method: z.literal('capture'),
  limit_info: nullish(LimitInfo),
});
export const VoidWebhook = z.looseObject({...secondaryWebhookFields, method: z.literal('void')});
export const RefundWebhook = z.looseObject({
  ...secondaryWebhookFields,
  method: z.literal('refund'),
  receipt_url: nullish(z.string()),
});

/** A subscription charge: the payment record plus `recurring {id, status}`. */
export const SubscriptionChargeWebhook = PrimaryWebhook.extend({recurring: RecurringRef});

/**
 * A capture's webhook payload: the secondary operation's record with `method: 'capture'` and the
 * hold's `limit_info`.
 */
export type CaptureWebhook = z.output<typeof CaptureWebhook>;
/** A void's webhook payload: the secondary operation's record with `method: 'void'`. */
export type VoidWebhook = z.output<typeof VoidWebhook>;
/**
 * A refund's webhook payload: the secondary operation's record with `method: 'refund'` and its
 * `receipt_url`.
 */
export type RefundWebhook = z.output<typeof RefundWebhook>;
export type SubscriptionChargeWebhook = z.output<typeof SubscriptionChargeWebhook>;

/** Any webhook, told apart by `method` (and `recurring` for subscription charges). */
export type WebhookPayload =
  | ({kind: 'primary'} & PrimaryWebhook)
  | ({kind: 'subscription_charge'} & SubscriptionChargeWebhook)
  | ({kind: 'capture'} & CaptureWebhook)
  | ({kind: 'void'} & VoidWebhook)
  | ({kind: 'refund'} & RefundWebhook);

/** Parses decoded webhook JSON into a {@link WebhookPayload} with a `kind` tag. */
export const WebhookPayload: z.ZodType<WebhookPayload, unknown> = z
  .unknown()
  .transform((input, ctx) => {
    const method =
      typeof input === 'object' && input !== null
        ? (input as Record<string, unknown>)['method']
        : undefined;
    const hasRecurring =
      typeof input === 'object' &&
      input !== null &&
      (input as Record<string, unknown>)['recurring'] != null;
    const pick = () => {
      switch (method) {
        case 'capture':
          return {kind: 'capture' as const, schema: CaptureWebhook};
        case 'void':
          return {kind: 'void' as const, schema: VoidWebhook};
        case 'refund':
          return {kind: 'refund' as const, schema: RefundWebhook};
        default:
          return hasRecurring
            ? {kind: 'subscription_charge' as const, schema: SubscriptionChargeWebhook}
            : {kind: 'primary' as const, schema: PrimaryWebhook};
      }
    };
    const {kind, schema} = pick();
    const parsed = (schema as z.ZodType).safeParse(input);
    if (!parsed.success) {
      // Passed on as they are, codes included, so `formatIssues` can say "is required".
      for (const issue of parsed.error.issues)
        ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }
    // The tag is set last, so it wins over a payload field of the same name.
    return {...(parsed.data as object), kind} as WebhookPayload;
  });

// ---------------------------------------------------------------------------------------
