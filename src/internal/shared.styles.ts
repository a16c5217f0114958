/**
 * Styles shared by the elements: the colour scheme (light, dark, or the customer's
 * preference), the `--pg-*` design tokens with their defaults, the status line and the
 * progress spinner. Everything else lives with its element.
 *
 * Each colour token `--pg-color-<name>` is read once, into the private `--_pg-<name>`,
 * whose default depends on the scheme (`schemed`); the elements' styles use only
 * `--_pg-<name>`. So a merchant's `--pg-color-*` wins in both schemes, and a scheme is one
 * list of defaults. The scheme: `theme="dark"` or `theme="light"` on the element, else the
 * customer's `prefers-color-scheme`. Both palettes keep every text at 4.5:1 or more; the
 * dark one paints the element's own surface, so it reads on a light page too.
 */
import {css, type CSSResult} from 'lit';

/** `light` (declarations for `:host`) in the light scheme, `dark` in the dark one. */
export function schemed(light: CSSResult, dark: CSSResult): CSSResult {
  return css`
    :host {
      ${light}
    }
    @media (prefers-color-scheme: dark) {
      :host(:not([theme='light'])) {
        ${dark}
      }
    }
    :host([theme='dark']) {
      ${dark}
    }
  `;
}

/** The colours every element uses. */
const colours = schemed(
  css`
    color-scheme: light;
    --_pg-text: var(--pg-color-text, #1f1f1f);
    --_pg-border: var(--pg-color-border, #8a8a8a);
    --_pg-background: var(--pg-color-background, #fff);
    --_pg-surface: var(--pg-color-surface, transparent);
    --_pg-focus: var(--pg-color-focus, #1a56db);
    --_pg-error: var(--pg-color-error, #b3261e);
    --_pg-success: var(--pg-color-success, #146c2e);
  `,
  css`
    color-scheme: dark;
    --_pg-text: var(--pg-color-text, #e8e8ea);
    --_pg-border: var(--pg-color-border, #8e8e96);
    --_pg-background: var(--pg-color-background, #2a2a30);
    --_pg-surface: var(--pg-color-surface, #1b1b1f);
    --_pg-focus: var(--pg-color-focus, #8ab4f8);
    --_pg-error: var(--pg-color-error, #ffb4ab);
    --_pg-success: var(--pg-color-success, #7ad68f);
  `,
);

export const sharedStyles = css`
  ${colours}
  :host {
    font-family: var(--pg-font-family, inherit);
    font-size: var(--pg-font-size, 1rem);
    color: var(--_pg-text);
    background: var(--_pg-surface);
    line-height: 1.4;
  }
  :host([hidden]) {
    display: none;
  }
  .status {
    min-height: 1.4em;
    margin: var(--pg-spacing, 0.75rem) 0 0;
  }
  .status--error,
  .status--failure {
    color: var(--_pg-error);
  }
  .status--success {
    color: var(--_pg-success);
  }
  .spinner {
    display: inline-block;
    width: 0.9em;
    height: 0.9em;
    margin-inline-end: 0.5em;
    vertical-align: -0.1em;
    border: 2px solid currentColor;
    border-right-color: transparent;
    border-radius: 50%;
    animation: pg-spin 0.8s linear infinite;
  }
  @keyframes pg-spin {
    to {
      transform: rotate(360deg);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .spinner {
      animation-duration: 2.4s;
    }
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
