/**
 * `pg-checkout/react`: the checkout elements as React components — `PgCardForm`,
 * `PgThreeDSRedirect` and `PgFingerprint` — made with `@lit/react`'s `createComponent`.
 * Properties are camelCase props (`orderRef`, `holderName`), each event an
 * `onPgSuccess`-style prop typed with its event class, and `ref` gives the element.
 *
 * Server rendering keeps every value. A property that has an attribute is rendered as that
 * attribute (`orderRef` → `order-ref="…"`), on the server and on the client alike, so the
 * HTML already configures the element and hydration finds what it expects; the rest
 * (`messages`, `navigate`) and the event listeners are set by `@lit/react` once the
 * component is mounted or hydrated (React itself sets neither when it hydrates a custom
 * element).
 *
 * Importing this module defines no element and touches no DOM, so a server can import it:
 * in a browser it loads the element modules itself (once, asynchronously; an element set up
 * before its definition arrives keeps its values, Lit takes them over when it upgrades).
 * Import `pg-checkout` as well to have them defined synchronously.
 */
import * as React from 'react';
import {createComponent} from '@lit/react';
import type {PgCardForm as PgCardFormElement} from '../card-form/card-form.js';
import type {PgFingerprint as PgFingerprintElement} from '../fingerprint/fingerprint.js';
import type {PgThreeDSRedirect as PgThreeDSRedirectElement} from '../three-ds-redirect/three-ds-redirect.js';
import {
  CARD_FORM_EVENTS,
  CARD_FORM_PROPERTIES,
  FINGERPRINT_EVENTS,
  FINGERPRINT_PROPERTIES,
  THREE_DS_REDIRECT_EVENTS,
  THREE_DS_REDIRECT_PROPERTIES,
  type PgEventName,
  type PropertyTable,
} from '../jsx/elements.js';

type Camel<S extends string> = S extends `${infer H}-${infer R}`
  ? `${H}${Capitalize<Camel<R>>}`
  : S;
/** The prop of event `N`: `pg-success` → `onPgSuccess`, `pg-3ds-required` → `onPg3dsRequired`. */
export type EventPropName<N extends string> = `on${Capitalize<Camel<N>>}`;

/** `onPgSuccess`-style props of a list of events, each typed with its event class. */
export type EventProps<L extends readonly PgEventName[]> = {
  [N in L[number] as EventPropName<N>]?: (event: GlobalEventHandlersEventMap[N]) => void;
};

/** The props of the component for element `E`, whose properties table is `T`. */
export type ComponentProps<E extends HTMLElement, T, L extends readonly PgEventName[]> = Omit<
  React.HTMLAttributes<E>,
  keyof T | keyof EventProps<L>
> & {-readonly [K in keyof T]?: K extends keyof E ? E[K] : never} & EventProps<L>;

/** A component made by this module: its props, and `ref` for the element. */
export type PgComponent<E extends HTMLElement, P> = React.ForwardRefExoticComponent<
  React.PropsWithoutRef<P> & React.RefAttributes<E>
>;

export type PgCardFormProps = ComponentProps<
  PgCardFormElement,
  typeof CARD_FORM_PROPERTIES,
  typeof CARD_FORM_EVENTS
>;
export type PgThreeDSRedirectProps = ComponentProps<
  PgThreeDSRedirectElement,
  typeof THREE_DS_REDIRECT_PROPERTIES,
  typeof THREE_DS_REDIRECT_EVENTS
>;
export type PgFingerprintProps = ComponentProps<
  PgFingerprintElement,
  typeof FINGERPRINT_PROPERTIES,
  typeof FINGERPRINT_EVENTS
>;

// In a browser, load the element modules, which define the elements; on a server, nothing.
if (typeof document !== 'undefined') {
  Promise.all([
    import('../card-form/card-form.js'),
    import('../three-ds-redirect/three-ds-redirect.js'),
    import('../fingerprint/fingerprint.js'),
  ]).catch((error: unknown) => {
    console.error('[pg-checkout] could not load the checkout elements', error);
  });
}

/** `pg-success` → `onPgSuccess`, as `EventPropName` does for types. */
const eventProp = (name: string): string =>
  `on${name.replace(/(?:^|-)(\w)/g, (_, c: string) => c.toUpperCase())}`;

/**
 * A React component for element `tagName`: `@lit/react` sets its property-only values and
 * listens to its events; the properties that have attributes are handed to React as those
 * attributes (see the module comment).
 */
function wrap<E extends HTMLElement, T extends PropertyTable<E>, L extends readonly PgEventName[]>(
  tagName: string,
  displayName: string,
  properties: T,
  events: L,
): PgComponent<E, ComponentProps<E, T, L>> {
  const table = properties as Readonly<Record<string, string | null>>;
  const attributes = Object.entries(table).filter(
    (entry): entry is [string, string] => entry[1] !== null,
  );
  // `createComponent` reads of the class only which names are properties (`name in
  // prototype`); a plain object stands in, so the element module is not needed here.
  const prototype = Object.fromEntries(
    Object.entries(table)
      .filter(([, attribute]) => attribute === null)
      .map(([property]) => [property, undefined]),
  );
  const Inner: React.ElementType = createComponent({
    react: React,
    tagName,
    elementClass: {prototype} as unknown as new () => E,
    events: Object.fromEntries(events.map((name) => [eventProp(name), name])),
    displayName,
  });
  const Outer = React.forwardRef<E, ComponentProps<E, T, L>>(function render(props, ref) {
    const rendered: Record<string, unknown> = {...props, ref};
    for (const [property, attribute] of attributes) {
      if (!(property in rendered)) continue;
      const value = rendered[property];
      delete rendered[property];
      rendered[attribute] = value;
    }
    return React.createElement(Inner, rendered);
  });
  Outer.displayName = displayName;
  return Outer;
}

/** `<pg-card-form>`: the card form. Events: `onPgSuccess`, `onPgFailure`, `onPgError`, … */
export const PgCardForm: PgComponent<PgCardFormElement, PgCardFormProps> = /* @__PURE__ */ wrap<
  PgCardFormElement,
  typeof CARD_FORM_PROPERTIES,
  typeof CARD_FORM_EVENTS
>('pg-card-form', 'PgCardForm', CARD_FORM_PROPERTIES, CARD_FORM_EVENTS);

/** `<pg-3ds-redirect>`: follows a 3-D Secure challenge, or resolves a return page. */
export const PgThreeDSRedirect: PgComponent<PgThreeDSRedirectElement, PgThreeDSRedirectProps> =
  /* @__PURE__ */ wrap<
    PgThreeDSRedirectElement,
    typeof THREE_DS_REDIRECT_PROPERTIES,
    typeof THREE_DS_REDIRECT_EVENTS
  >('pg-3ds-redirect', 'PgThreeDSRedirect', THREE_DS_REDIRECT_PROPERTIES, THREE_DS_REDIRECT_EVENTS);

/** `<pg-fingerprint>`: adds the browser fingerprint to the form it sits in. */
export const PgFingerprint: PgComponent<PgFingerprintElement, PgFingerprintProps> =
  /* @__PURE__ */ wrap<
    PgFingerprintElement,
    typeof FINGERPRINT_PROPERTIES,
    typeof FINGERPRINT_EVENTS
  >('pg-fingerprint', 'PgFingerprint', FINGERPRINT_PROPERTIES, FINGERPRINT_EVENTS);
