/**
 * What a framework needs to know about each checkout element, in one place: its public
 * properties with the attribute each one reads (`null`: a property only, such as `messages`),
 * and the events it dispatches. The React wrapper (`pg-checkout/react`) renders these
 * attributes, so server rendering keeps every value, and the JSX typings
 * (`pg-checkout/jsx/*`) derive their attribute types from them. Plain data: importing it
 * touches no DOM and defines no element. test/node/frameworks/manifest.test.ts keeps it equal
 * to the elements' own properties and to the custom-elements manifest.
 */
import type {PgCardForm} from '../card-form/card-form.js';
import type {PgFingerprint} from '../fingerprint/fingerprint.js';
import type {PgThreeDSRedirect} from '../three-ds-redirect/three-ds-redirect.js';

/** Property name → the attribute it reads, or `null` when it has none. */
export type PropertyTable<E> = {readonly [K in keyof E]?: string | null};

/** A `pg-` event name, registered in `GlobalEventHandlersEventMap`. */
export type PgEventName = Extract<keyof GlobalEventHandlersEventMap, `pg-${string}`>;

export const CARD_FORM_PROPERTIES = {
  endpoint: 'endpoint',
  statusEndpoint: 'status-endpoint',
  orderRef: 'order-ref',
  threeDSMode: 'three-ds-mode',
  challengeWindowSize: 'challenge-window-size',
  holderName: 'holder-name',
  customerName: 'customer-name',
  customerEmail: 'customer-email',
  customerPhone: 'customer-phone',
  required: 'required',
  disabled: 'disabled',
  acceptedBrands: 'accepted-brands',
  acceptHeader: 'accept-header',
  amount: 'amount',
  currency: 'currency',
  theme: 'theme',
  orderDetails: 'order-details',
  offerSaveCard: 'offer-save-card',
  messages: null,
} as const satisfies PropertyTable<PgCardForm>;

/** The card form's own events, plus `pg-3ds-cancel` from the `<pg-3ds-redirect>` inside it. */
export const CARD_FORM_EVENTS = [
  'pg-validity-change',
  'pg-brand-change',
  'pg-submit',
  'pg-success',
  'pg-failure',
  'pg-3ds-required',
  'pg-3ds-cancel',
  'pg-error',
] as const satisfies readonly PgEventName[];

export const THREE_DS_REDIRECT_PROPERTIES = {
  mode: 'mode',
  windowSize: 'window-size',
  statusEndpoint: 'status-endpoint',
  resolve: 'resolve',
  returnUrl: 'return-url',
  timeout: 'timeout',
  pollInterval: 'poll-interval',
  noStatus: 'no-status',
  messages: null,
  navigate: null,
} as const satisfies PropertyTable<PgThreeDSRedirect>;

export const THREE_DS_REDIRECT_EVENTS = [
  'pg-success',
  'pg-failure',
  'pg-error',
  'pg-3ds-cancel',
] as const satisfies readonly PgEventName[];

export const FINGERPRINT_PROPERTIES = {
  name: 'name',
} as const satisfies PropertyTable<PgFingerprint>;

export const FINGERPRINT_EVENTS = [] as const satisfies readonly PgEventName[];

/** The attributes of element `E` as table `T` names them: `{'order-ref'?: string, …}`. */
export type AttributesOf<E, T> = {
  -readonly [K in keyof T as T[K] extends string ? T[K] : never]?: K extends keyof E ? E[K] : never;
};

/** The properties of `E` that have no attribute (objects, functions): `{messages?: …}`. */
export type PropertyOnlyOf<E, T> = {
  -readonly [K in keyof T as T[K] extends null ? K : never]?: K extends keyof E ? E[K] : never;
};

/** Event name → event class, for a list of event names. */
export type EventsOf<L extends readonly PgEventName[]> = {
  [N in L[number]]: GlobalEventHandlersEventMap[N];
};

export type PgCardFormAttributes = AttributesOf<PgCardForm, typeof CARD_FORM_PROPERTIES>;
export type PgCardFormEvents = EventsOf<typeof CARD_FORM_EVENTS>;
export type PgThreeDSRedirectAttributes = AttributesOf<
  PgThreeDSRedirect,
  typeof THREE_DS_REDIRECT_PROPERTIES
>;
export type PgThreeDSRedirectEvents = EventsOf<typeof THREE_DS_REDIRECT_EVENTS>;
export type PgFingerprintAttributes = AttributesOf<PgFingerprint, typeof FINGERPRINT_PROPERTIES>;
export type PgFingerprintEvents = EventsOf<typeof FINGERPRINT_EVENTS>;

/**
 * Every element with what its typings are made of: its class, its property table, its
 * attributes and its events. The per-framework typings map over this.
 */
export interface PgElements {
  'pg-card-form': {
    element: PgCardForm;
    properties: typeof CARD_FORM_PROPERTIES;
    attributes: PgCardFormAttributes;
    events: PgCardFormEvents;
  };
  'pg-3ds-redirect': {
    element: PgThreeDSRedirect;
    properties: typeof THREE_DS_REDIRECT_PROPERTIES;
    attributes: PgThreeDSRedirectAttributes;
    events: PgThreeDSRedirectEvents;
  };
  'pg-fingerprint': {
    element: PgFingerprint;
    properties: typeof FINGERPRINT_PROPERTIES;
    attributes: PgFingerprintAttributes;
    events: PgFingerprintEvents;
  };
}
