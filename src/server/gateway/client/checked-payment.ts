/**
 * Checked payment requests: a payment request validated with the gateway model once, and
 * the exact JSON text that goes on the wire. Also the relaxed check of the
 * `hostedContacts: 'optional'` option, derived from the model's `HostedPaymentRequest`:
 * the same rules, but a hosted payment may omit `customer_email` and `customer_phone`,
 * as the live gateway allows (gateway-facts.md).
 */
import * as z from 'zod';
import {DirectPaymentRequest, HostedPaymentRequest, PaymentRequest} from '../schemas.js';
import type {HostedContacts} from '../schemas.js';
import type {WithOptionalPosId} from './requests.js';

/** A hosted payment whose contact fields may be left out (still checked when sent). */
const RelaxedHostedPaymentRequest = HostedPaymentRequest.extend({
  customer_email: HostedPaymentRequest.shape.customer_email.optional(),
  customer_phone: HostedPaymentRequest.shape.customer_phone.optional(),
});

/** {@link PaymentRequest} with {@link RelaxedHostedPaymentRequest} for hosted payments. */
const RelaxedPaymentRequest = z.discriminatedUnion(
  'mode',
  [DirectPaymentRequest, RelaxedHostedPaymentRequest],
  {error: 'must be direct or hosted'},
);

/** A validated payment request; with `hostedContacts: 'optional'` a hosted one may lack contacts. */
export type CheckedPaymentData = z.output<typeof RelaxedPaymentRequest>;

/**
 * What `createPayment` takes: a payment request whose `pos_id` may be left to the client,
 * and whose hosted contacts may be left out (refused at run time unless
 * `hostedContacts` is `'optional'`).
 */
export type CreatePaymentInput = WithOptionalPosId<z.input<typeof RelaxedPaymentRequest>>;

/** The payment request check for a `hostedContacts` setting. */
export function paymentRequestSchema(
  hostedContacts: HostedContacts,
): z.ZodType<CheckedPaymentData> {
  return hostedContacts === 'optional' ? RelaxedPaymentRequest : PaymentRequest;
}

/** Options of {@link CheckedPaymentRequest.check}. */
export interface CheckPaymentOptions {
  /** `'optional'`: a hosted payment may omit `customer_email` and `customer_phone`. */
  hostedContacts?: HostedContacts;
}

/**
 * A payment request validated with the gateway model, and the JSON text that goes on the
 * wire, made from the validated request when it was checked: a caller that must validate
 * before it stores anything (the checkout companion) passes it to
 * `GatewayClient.createPayment` with the same request, which then sends that text instead
 * of validating again. Made only by {@link check}; the text cannot change afterwards.
 */
export class CheckedPaymentRequest {
  readonly #input: object;
  readonly #data: CheckedPaymentData;
  readonly #json: string;
  readonly #hostedContacts: HostedContacts;

  private constructor(input: object, data: CheckedPaymentData, hostedContacts: HostedContacts) {
    this.#input = input;
    this.#data = Object.freeze(data);
    this.#json = JSON.stringify(data);
    this.#hostedContacts = hostedContacts;
  }

  /**
   * Validates `{pos_id, ...request}` (with `hostedContacts: 'optional'`, a hosted payment
   * may lack contacts); the check, or the issues that fail it.
   */
  static check(
    request: CreatePaymentInput,
    posId?: string,
    options: CheckPaymentOptions = {},
  ): {ok: true; checked: CheckedPaymentRequest} | {ok: false; error: z.ZodError} {
    const hostedContacts = options.hostedContacts ?? 'required';
    const parsed = paymentRequestSchema(hostedContacts).safeParse(
      posId === undefined ? request : {pos_id: posId, ...request},
    );
    if (!parsed.success) return {ok: false, error: parsed.error};
    return {ok: true, checked: new CheckedPaymentRequest(request, parsed.data, hostedContacts)};
  }

  /**
   * True when `checked` was made by {@link check} from this very `request` object, under
   * rules no looser than `hostedContacts`.
   */
  static isCheckOf(
    checked: unknown,
    request: object,
    hostedContacts: HostedContacts = 'required',
  ): checked is CheckedPaymentRequest {
    return (
      typeof checked === 'object' &&
      checked !== null &&
      #input in checked &&
      checked.#input === request &&
      (checked.#hostedContacts === 'required' || hostedContacts === 'optional')
    );
  }

  /** The validated request (amounts as numbers, and so on); frozen, and not what is sent. */
  get data(): CheckedPaymentData {
    return this.#data;
  }

  /** The JSON text sent to the gateway. */
  get json(): string {
    return this.#json;
  }
}

/** Validates a payment request once, for `GatewayClient.createPayment`. */
export const checkPaymentRequest = CheckedPaymentRequest.check;
