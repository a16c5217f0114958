/**
 * `pg-checkout/jsx/preact`: puts `<pg-card-form>`, `<pg-3ds-redirect>` and `<pg-fingerprint>`
 * into Preact's `JSX.IntrinsicElements`. Load it once, types only:
 * `import type {} from 'pg-checkout/jsx/preact';`.
 *
 * Attributes are the kebab-case ones (`order-ref`, `holder-name`); Preact sets them as
 * attributes and removes a boolean one given `false`. Events are `onpg-success`-style
 * props: Preact listens to the name after `on` as written.
 */
import type {HTMLAttributes} from 'preact';
import type {PgElements} from './elements.js';

/** `onpg-success`-style listener props of an element, typed with its event classes. */
export type PreactEventProps<Events> = {
  [N in keyof Events as `on${N & string}`]?: (event: Events[N]) => void;
};

/** The props Preact accepts on one checkout element. */
export type PreactElementProps<T extends keyof PgElements> = HTMLAttributes<
  PgElements[T]['element']
> &
  PgElements[T]['attributes'] &
  PreactEventProps<PgElements[T]['events']>;

declare module 'preact' {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Preact's JSX lives in one
  namespace JSX {
    interface IntrinsicElements {
      'pg-card-form': PreactElementProps<'pg-card-form'>;
      'pg-3ds-redirect': PreactElementProps<'pg-3ds-redirect'>;
      'pg-fingerprint': PreactElementProps<'pg-fingerprint'>;
    }
  }
}
