/**
 * `pg-checkout/jsx/solid`: puts `<pg-card-form>`, `<pg-3ds-redirect>` and `<pg-fingerprint>`
 * into Solid's `JSX.IntrinsicElements`. Load it once, types only:
 * `import type {} from 'pg-checkout/jsx/solid';`.
 *
 * Solid sets what it is given on a custom element as a property, named by lower-casing the
 * attribute and camel-casing at the dashes (`order-ref` → `orderRef`). So an attribute is
 * typed under its own name where that lands on the element's property, and otherwise only
 * in the explicit `attr:` form (`attr:three-ds-mode`; `bool:` for a boolean), which Solid
 * sets as an attribute; the plain name is then refused. Property-only values are typed under their name when it is all
 * lower case (`messages`) and otherwise as `prop:name`. Events are `on:pg-success`.
 */
import type {JSX} from 'solid-js';
import type {PgElements} from './elements.js';

/** The property Solid sets for attribute `A`: lower case, camel-cased at each `-x`. */
type SolidPropertyName<A extends string> = SolidCamel<Lowercase<A>>;
type SolidCamel<S extends string> = S extends `${infer H}-${infer C}${infer R}`
  ? `${H}${Uppercase<C>}${SolidCamel<R>}`
  : S;

/** How Solid is given property `K` of element `E`, whose attribute (or `null`) is `A`. */
type SolidKey<E, K extends PropertyKey, A> = K extends keyof E & string
  ? A extends string
    ? SolidPropertyName<A> extends K
      ? A
      : E[K] extends boolean
        ? `bool:${A}`
        : `attr:${A}`
    : Lowercase<K> extends K
      ? K
      : `prop:${K}`
  : never;

/** The attributes and property-only values of one element, keyed as Solid needs them. */
export type SolidAttributes<E, T> = {
  -readonly [K in keyof T as SolidKey<E, K, T[K]>]?: K extends keyof E ? E[K] : never;
} & {
  // An attribute Solid would set as the wrong property: refused under its plain name
  // (TypeScript lets any dashed JSX attribute through unless it is declared).
  -readonly [
    K in keyof T as T[K] extends `${string}-${string}`
      ? SolidKey<E, K, T[K]> extends T[K]
        ? never
        : T[K]
      : never
  ]?: never;
};

/** `on:pg-success`-style listener props of an element, typed with its event classes. */
export type SolidEventProps<E, Events> = {
  [N in keyof Events as `on:${N & string}`]?: JSX.EventHandlerWithOptionsUnion<
    E,
    Events[N] & Event
  >;
};

/** The props Solid accepts on one checkout element. */
export type SolidElementProps<T extends keyof PgElements> = JSX.HTMLAttributes<
  PgElements[T]['element']
> &
  SolidAttributes<PgElements[T]['element'], PgElements[T]['properties']> &
  SolidEventProps<PgElements[T]['element'], PgElements[T]['events']>;

declare module 'solid-js' {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Solid's JSX lives in one
  namespace JSX {
    interface IntrinsicElements {
      'pg-card-form': SolidElementProps<'pg-card-form'>;
      'pg-3ds-redirect': SolidElementProps<'pg-3ds-redirect'>;
      'pg-fingerprint': SolidElementProps<'pg-fingerprint'>;
    }
  }
}
