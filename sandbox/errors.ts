/**
 * The sandbox's error answers, in the live gateway's shape: `{message, args: {code}}`.
 * Every code is stable and documented (docs/reference/sandbox.md); messages name the field
 * and the rule, never a value, so card data can never leak through an error.
 */

/** Error codes the sandbox answers, with their HTTP status and meaning. */
export const ERROR_CODES = {
  'S-404': {
    status: 401,
    meaning: 'Invalid pos_id field or credentials (every authentication failure)',
  },
  'V-400': {
    status: 400,
    meaning: 'A request field breaks its rule; the message names the field and the rule',
  },
  'P-409': {status: 400, meaning: 'The order_id was used before (even by a failed attempt)'},
  'P-420': {
    status: 400,
    meaning: 'Cancel refused: only an unpaid (init) hosted purchase or auth can be cancelled',
  },
  'P-430': {
    status: 400,
    meaning: 'Capture refused: the order is not a held (1002) auth that can still be captured',
  },
  'P-431': {status: 400, meaning: 'Capture refused: the amount exceeds the held amount'},
  'P-440': {
    status: 400,
    meaning: 'Void refused: the order is not a held auth that can still be voided',
  },
  'P-450': {
    status: 400,
    meaning: 'Refund refused: the order is not a successful purchase or capture',
  },
  'P-451': {status: 400, meaning: 'Refund refused: the amount exceeds what is left to refund'},
  'P-460': {status: 400, meaning: 'The currency is not the order currency'},
  'P-470': {status: 400, meaning: 'cc_token is not a card token of this project'},
  'P-471': {status: 400, meaning: 'cc_token has expired (its cc_token_expiration has passed)'},
  'N-404': {status: 404, meaning: 'Unknown endpoint, order, operation, subscription or report'},
  'M-405': {status: 405, meaning: 'Wrong HTTP method for a known path'},
  'M-406': {
    status: 406,
    meaning: 'A POST body that is not application/json, or JSON that does not parse',
  },
  'S-500': {status: 500, meaning: 'Internal error (or the 500 fault): the outcome is unknown'},
  'S-503': {status: 503, meaning: 'Service unavailable (the 503 fault): the outcome is unknown'},
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** An error the sandbox answers with its status and `{message, args: {code}}` body. */
export class SandboxError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.extra = extra;
  }

  body(): {message: string; args: Record<string, unknown>} {
    return {message: this.message.slice(0, 512), args: {code: this.code, ...this.extra}};
  }
}

export const AUTH_FAILED_MESSAGE = 'Invalid pos_id field or credentials';

export const authError = () => new SandboxError('S-404', AUTH_FAILED_MESSAGE);
export const notFound = (what: string) => new SandboxError('N-404', `${what} not found`);
