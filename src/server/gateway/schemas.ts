/**
 * The gateway's data model: one zod schema for every request and resource of
 * `gateway-spec.md`, plus the secondary operations of `gateway-facts.md`. The merchant's
 * client validates what it sends and what it gets with these, and the sandbox validates
 * what it receives and builds what it answers with the same schemas, so the two can never
 * disagree about the interface.
 *
 * Requests are strict: an unknown key is an error that names it (a typo never reaches the
 * gateway). Each payment and secondary-operation request is defined once
 * (`requestSchemas`) and read two ways: the wire schemas (`Wire…`: amounts are JSON
 * numbers, as the spec defines them; the sandbox checks what arrives with these) and, as a
 * separate layer on top, the input schemas for the client's callers (the unprefixed names:
 * amounts may also be decimal text). The other parts of the model live beside this file
 * and are re-exported here, so the model is imported from one place: `enums.ts`,
 * `request-schemas.ts` (the requests, defined once), `records.ts` (what comes back, read
 * leniently), `webhook-payloads.ts` and `issues.ts`.
 */
import {Amount} from './primitives.js';
import {WireAmount, requestSchemas} from './request-schemas.js';
import type * as z from 'zod';

// The model's other parts, re-exported so the model is imported from one place.
export * from './enums.js';
export * from './records.js';
export * from './webhook-payloads.js';
export * from './issues.js';
export * from './request-schemas.js';

/**
 * The wire schemas: requests exactly as the spec defines them, amounts as JSON numbers.
 * The sandbox checks what it receives with these.
 */
const wire = requestSchemas(WireAmount);
export const WireInitRecurring = wire.InitRecurring;
export const WireProduct = wire.Product;
export const WireDirectPaymentRequest = wire.DirectPaymentRequest;
export const WireHostedPaymentRequest = wire.HostedPaymentRequest;
export const WirePaymentRequest = wire.PaymentRequest;
export const WireCaptureRequest = wire.CaptureRequest;
export const WireVoidRequest = wire.VoidRequest;
export const WireRefundRequest = wire.RefundRequest;

/**
 * The input schemas for the client's callers: the same requests with amounts also taken as
 * decimal text (`"12.50"`), which the parsed value carries as the JSON number that goes on
 * the wire. The client validates what its callers pass with these.
 */
const input = requestSchemas(Amount);
export const InitRecurring = input.InitRecurring;
export type InitRecurring = z.output<typeof InitRecurring>;
/**
 * `init_recurring` as you write it (a payment that starts a subscription): its interval, retries,
 * start and expiry.
 */
export type InitRecurringInput = z.input<typeof InitRecurring>;
export const Product = input.Product;
export const DirectPaymentRequest = input.DirectPaymentRequest;
export type DirectPaymentRequest = z.output<typeof DirectPaymentRequest>;
/**
 * A direct payment as you write it for `GatewayClient.createPayment`: the card (or a token) with
 * the order, amounts as decimal text or numbers.
 */
export type DirectPaymentRequestInput = z.input<typeof DirectPaymentRequest>;
export const HostedPaymentRequest = input.HostedPaymentRequest;
export type HostedPaymentRequest = z.output<typeof HostedPaymentRequest>;
/**
 * A hosted payment as you write it for `GatewayClient.createPayment`: the order, and the pages the
 * gateway sends the customer back to.
 */
export type HostedPaymentRequestInput = z.input<typeof HostedPaymentRequest>;
export const PaymentRequest = input.PaymentRequest;
export type PaymentRequest = z.output<typeof PaymentRequest>;
/**
 * Either payment request, told apart by `mode` ({@link DirectPaymentRequestInput}, {@link
 * HostedPaymentRequestInput}).
 */
export type PaymentRequestInput = z.input<typeof PaymentRequest>;
export const CaptureRequest = input.CaptureRequest;
export type CaptureRequest = z.output<typeof CaptureRequest>;
export const VoidRequest = input.VoidRequest;
export type VoidRequest = z.output<typeof VoidRequest>;
export const RefundRequest = input.RefundRequest;
export type RefundRequest = z.output<typeof RefundRequest>;

// ---------------------------------------------------------------------------------------
