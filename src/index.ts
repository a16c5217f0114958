/**
 * Browser entry of pg-checkout: defines `<pg-card-form>`, `<pg-fingerprint>` and
 * `<pg-3ds-redirect>`, and exports their classes, events, the fingerprint collector, the
 * card validation helpers, the built-in messages and the checkout protocol types.
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
export * from './events/events.js';
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
export {en, uk, type CheckoutMessages} from './i18n/messages.js';
export * from './protocol/checkout.js';
