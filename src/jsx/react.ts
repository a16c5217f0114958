/**
 * `pg-checkout/jsx/react`: puts `<pg-card-form>`, `<pg-3ds-redirect>` and `<pg-fingerprint>`
 * into React's `JSX.IntrinsicElements` (React 19's `React.JSX`), for apps that write the
 * elements themselves rather than through `pg-checkout/react`. Load it once, types only:
 * `import type {} from 'pg-checkout/jsx/react';`.
 *
 * Attributes are the kebab-case ones (`order-ref`, `holder-name`): React 19 renders those
 * on the server and they survive hydration, while camelCase properties (`orderRef`) would
 * not, so they are refused here. Events are `onpg-success`-style props, which React 19
 * adds as listeners on the client; it does not add them when it hydrates server-rendered
 * HTML, nor does it set property-only values such as `messages`: with server rendering use
 * the `pg-checkout/react` components, which do both.
 */
import type {DetailedHTMLProps, HTMLAttributes} from 'react';
import type {PgElements} from './elements.js';

/** `onpg-success`-style listener props of an element, typed with its event classes. */
export type ReactEventProps<Events> = {
  [N in keyof Events as `on${N & string}`]?: (event: Events[N]) => void;
};

/** The props React accepts on one checkout element. */
export type ReactElementProps<T extends keyof PgElements> = DetailedHTMLProps<
  HTMLAttributes<PgElements[T]['element']>,
  PgElements[T]['element']
> &
  PgElements[T]['attributes'] &
  ReactEventProps<PgElements[T]['events']>;

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- React's JSX lives in one
  namespace JSX {
    interface IntrinsicElements {
      'pg-card-form': ReactElementProps<'pg-card-form'>;
      'pg-3ds-redirect': ReactElementProps<'pg-3ds-redirect'>;
      'pg-fingerprint': ReactElementProps<'pg-fingerprint'>;
    }
  }
}
