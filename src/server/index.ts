/**
 * `pg-checkout/server`: the merchant's side, and only what a merchant uses — every name
 * here is a promise (`test/node/api/exports.test.ts` holds the list, so an export added or
 * dropped by accident fails by name). Four groups:
 * - the checkout companion: `createCheckoutApp`, its payment stores, logger and errors;
 * - the gateway client: `GatewayClient`, its options, authentication and typed errors;
 * - webhooks: verifying and reading what the gateway posts (and signing, for tests);
 * - the gateway's data model as TypeScript types (requests, records, webhooks), with the
 *   enumerations a merchant's own forms and checks need.
 * The modules behind these names (the payment service, the state machine, migrations, the
 * zod schemas, route constants) are internal and may change in any release.
 */

// The checkout companion.
export {
  createCheckoutApp,
  type CheckoutApp,
  type CheckoutCloseOptions,
  type CheckoutCloseResult,
} from './http/app.js';
export type {CheckoutReadiness} from './http/checkout-app.js';
// The companion's door, for a merchant app that mounts it: the same headers and body read.
export {
  CheckoutClientAbortedError,
  CheckoutMethodNotAllowedError,
  CheckoutRequestTimeoutError,
  boundedBody,
  checkoutHeaders,
  type BoundedBodyOptions,
} from './http/ingress.js';
export {StoreBusyError} from './store/store-busy.js';
export type {CheckoutAppOptions} from './http/options-schema.js';
export type {
  CheckoutGateway,
  DuplicateChargePolicy,
  ResolveOrder,
  SweepResult,
} from './payments/index.js';
export type {OrderCustomer, RequestContext, ResolvedOrder} from './payments/gateway-request.js';
export type {
  AttemptRecord,
  AttemptState,
  PaymentStore,
  PaymentUpdate,
  PaymentUpdateKind,
} from './store/payment-store.js';
export {StoreUnavailableError} from './store/payment-store.js';
export type {
  SavedCardRecord,
  SavedCardStore,
  SavedCardSummary,
} from './store/saved-card-records.js';
export {SqlitePaymentStore, type SqlitePaymentStoreOptions} from './store/sqlite/sqlite-store.js';
export {
  PostgresPaymentStore,
  type PostgresPaymentStoreOptions,
} from './store/postgres/postgres-store.js';
// The payment page's CSP violation reports (`POST /security-report`) and where they are kept.
export type {
  SecurityReport,
  SecurityReportStore,
  StoredSecurityReport,
} from './store/security-report-records.js';
export {
  SECURITY_REPORT_ROUTE,
  type SecurityReportEvent,
  type SecurityReportOptions,
} from './http/security-report-route.js';
export {
  SqliteSecurityReportStore,
  type SqliteSecurityReportStoreOptions,
} from './store/sqlite/sqlite-security-reports.js';
export {
  PostgresSecurityReportStore,
  type PostgresSecurityReportStoreOptions,
} from './store/postgres/postgres-security-reports.js';
// The shop-wide defences' counters (the card-testing breaker, the bound on refused webhooks).
export {MemoryGuardStore, type GuardFlag, type GuardStore} from './store/guard-store.js';
export {SqliteGuardStore, type SqliteGuardStoreOptions} from './store/sqlite/sqlite-guard-store.js';
export {
  PostgresGuardStore,
  type PostgresGuardStoreOptions,
} from './store/postgres/postgres-guard-store.js';
export {
  CARD_TESTING_DEFAULTS,
  type CardTestingOptions,
  type CardTestingState,
} from './defences/card-testing.js';
export {createCheckoutLogger, type CheckoutLogger, type LogMethod} from './telemetry/logger.js';
export {normaliseIp} from './defences/client-address.js';
export {
  CheckoutConfigError,
  CheckoutBusyError,
  CheckoutError,
  CheckoutForbiddenError,
  CheckoutGatewayUnavailableError,
  CheckoutInternalError,
  CheckoutInvalidRequestError,
  CheckoutNotFoundError,
  CheckoutOperationRefusedError,
  CheckoutOrderNotPayableError,
  CheckoutPayloadTooLargeError,
  CheckoutRateLimitedError,
  CheckoutStoreUnavailableError,
} from './errors.js';
export {MissingPeerDependencyError} from './optional-peers.js';

// The gateway client.
export {
  GatewayClient,
  checkPaymentRequest,
  type CheckPaymentOptions,
  type CreatePaymentInput,
  type CreatePaymentResult,
  type FetchLike,
  type GatewayClientOptions,
  type GatewayClock,
  type HostedContacts,
  type CaptureInput,
  type RefundInput,
  type RegisterInput,
  type RegisterResult,
  type VoidInput,
  type WaitForRegisterOptions,
} from './gateway/client/index.js';
export {
  assumedHmacSignature,
  hmacAuth,
  plainAuth,
  verifyRequestAuth,
  type AuthCheck,
  type AuthStrategy,
  type Credentials,
  type GatewayEndpoint,
  type HeaderForm,
  type SignatureRecipe,
  type SignContext,
} from './gateway/auth.js';
export {
  GATEWAY_ERROR_CODES,
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayProtocolError,
  GatewayRateLimitError,
  GatewayRequestValidationError,
  GatewayUnavailableError,
  GatewayValidationError,
  WebhookDecodeError,
  WebhookSignatureError,
  isRefusal,
  type GatewayErrorCode,
} from './gateway/errors.js';

// Webhooks.
export {
  encodeWebhookData,
  parseWebhookForm,
  signWebhook,
  verifyWebhook,
  type WebhookForm,
} from './gateway/webhook.js';

// Card tokens out of what leaves the server: a gateway answer as JSON text without `cc_token`.
export {jsonWithoutToken} from './store/stored-tokens.js';

// The gateway's data model.
export {amountFromMinor, amountToMinor} from './gateway/primitives.js';
export {
  CREATE_METHODS,
  INTERVAL_UNITS,
  MODES,
  RECURRING_STATUSES,
  REGISTER_FIELDS,
  REGISTER_METHODS,
  STATUSES,
  type CaptureWebhook,
  type DirectPaymentRequestInput,
  type HostedPaymentRequestInput,
  type InitRecurringInput,
  type OperationRecord,
  type PaymentRecord,
  type PaymentRequestInput,
  type PeriodTransaction,
  type PrimaryWebhook,
  type RefundWebhook,
  type RegisterRecord,
  type SubscriptionChargeWebhook,
  type SubscriptionRecord,
  type TransactionRecord,
  type VoidWebhook,
  type WebhookPayload,
} from './gateway/schemas.js';
