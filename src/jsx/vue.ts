/**
 * `pg-checkout/jsx/vue`: declares `<pg-card-form>`, `<pg-3ds-redirect>` and
 * `<pg-fingerprint>` for Vue: in `GlobalComponents` (what vue-tsc checks templates against)
 * and in the intrinsic elements of Vue's TSX. Load it once, types only:
 * `import type {} from 'pg-checkout/jsx/vue';`. (Tell Vue's compiler they are custom
 * elements too: `compilerOptions.isCustomElement: (tag) => tag.startsWith('pg-')`.)
 *
 * Attributes are the kebab-case ones. Vue writes `false` into an attribute as the text
 * "false", which a boolean attribute reads as present, so boolean attributes take `true`
 * (or `''`) and `null` to remove them, never `false`. Events are `onPgSuccess`-style props,
 * which Vue turns back into `pg-success`; Vue cannot do that for a name with a digit after
 * a dash, so those are `onPg-3ds-required` (in a template: `v-on="{'pg-3ds-required': f}"`).
 */
import type {DefineComponent, HTMLAttributes, ReservedProps} from 'vue';
import type {PgElements} from './elements.js';

/** A boolean attribute as Vue must be given it: present (`true`, `''`) or removed (`null`). */
type VueAttributeValue<V> = [V] extends [boolean] ? true | '' | null : V;

/** The attributes of one element, with the values Vue renders correctly. */
export type VueAttributes<A> = {[K in keyof A]?: VueAttributeValue<Exclude<A[K], undefined>>};

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type Camel<S extends string> = S extends `${infer H}-${infer R}`
  ? `${H}${Capitalize<Camel<R>>}`
  : S;
/** The prop Vue maps back to event `N`: `onPgSuccess`, or `onPg-3ds-required` (see above). */
type VueHandlerKey<N extends string> = N extends `${string}-${Digit}${string}`
  ? `on${Capitalize<N>}`
  : `on${Capitalize<Camel<N>>}`;

/** `onPgSuccess`-style listener props of an element, typed with its event classes. */
export type VueEventProps<Events> = {
  [N in keyof Events as VueHandlerKey<N & string>]?: (event: Events[N]) => void;
};

/** The props Vue accepts on one checkout element. */
export type VueElementProps<T extends keyof PgElements> = VueAttributes<
  PgElements[T]['attributes']
> &
  VueEventProps<PgElements[T]['events']>;

declare module 'vue' {
  interface GlobalComponents {
    'pg-card-form': DefineComponent<VueElementProps<'pg-card-form'>>;
    'pg-3ds-redirect': DefineComponent<VueElementProps<'pg-3ds-redirect'>>;
    'pg-fingerprint': DefineComponent<VueElementProps<'pg-fingerprint'>>;
  }
  interface IntrinsicElementAttributes {
    'pg-card-form': HTMLAttributes & ReservedProps & VueElementProps<'pg-card-form'>;
    'pg-3ds-redirect': HTMLAttributes & ReservedProps & VueElementProps<'pg-3ds-redirect'>;
    'pg-fingerprint': HTMLAttributes & ReservedProps & VueElementProps<'pg-fingerprint'>;
  }
}
