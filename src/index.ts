/**
 * Browser entry of pg-checkout: defines `<pg-card-form>`, `<pg-fingerprint>` and
 * `<pg-3ds-redirect>`, and exports their classes, events, the fingerprint collector, the
 * card validation helpers, the built-in messages and the checkout protocol types. Every
 * name is listed (no `export *`): `test/node/api/exports.test.ts` holds the list, so an
 * export added or dropped by accident fails by name. Route names, header names and storage
 * keys of the protocol stay internal.
 */
export {PgCardForm, CARD_FORM_PHASES, type CardFormPhase} from './card-form/card-form.js';
export {PgFingerprint} from './fingerprint/fingerprint.js';
export {
  PgThreeDSRedirect,
  CHALLENGE_WINDOW_SIZES,
  THREE_DS_MODES,
  REDIRECT_STATES,
  type ChallengeWindowSize,
  type ThreeDSMode,
  type RedirectState,
} from './three-ds-redirect/three-ds-redirect.js';
export {
  collectBrowserFingerprint,
  toEmvColorDepth,
  toEmvLanguage,
  EMV_COLOR_DEPTHS,
  type FingerprintSource,
} from './fingerprint/collect.js';
export {
  PgBrandChangeEvent,
  PgErrorEvent,
  PgFailureEvent,
  PgSubmitEvent,
  PgSuccessEvent,
  PgThreeDSCancelEvent,
  PgThreeDSRequiredEvent,
  PgValidityChangeEvent,
  type CardField,
  type PgBrandChangeDetail,
  type PgErrorCode,
  type PgErrorDetail,
  type PgFailureDetail,
  type PgSubmitDetail,
  type PgSuccessDetail,
  type PgThreeDSCancelDetail,
  type PgThreeDSRequiredDetail,
  type PgValidityChangeDetail,
} from './events/events.js';
export {
  validateNumber,
  validateExpiry,
  validateCvv,
  formatNumber,
  formatExpiry,
  parseExpiry,
  digitsOnly,
  type CardBrand,
  type Validity,
} from './validation/card.js';
export {
  SHIPPED_LOCALES,
  en,
  formatAmount,
  loadMessages,
  localeDirection,
  registerMessages,
  type CheckoutMessages,
} from './i18n/messages.js';
export {
  CHECKOUT_ERROR_CODES,
  PAYMENT_STATES,
  PAY_OUTCOMES,
  type CardInput,
  type CheckoutErrorBody,
  type CheckoutErrorCode,
  type ClientFingerprint,
  type CustomerInput,
  type OrderRequest,
  type OrderResponse,
  type PayFailure,
  type PayOutcomeKind,
  type PayProcessing,
  type PayRequest,
  type PayResponse,
  type PaySuccess,
  type PayThreeDSRequired,
  type PaymentState,
  type RemoveSavedCardRequest,
  type SavedCardView,
  type StatusResponse,
} from './protocol/checkout.js';
