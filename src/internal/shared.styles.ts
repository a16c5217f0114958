/**
 * Styles shared by the elements: the colour scheme (light, dark, or the customer's
 * preference), the `--pg-*` design tokens with their defaults, the status line and the
 * progress spinner. Everything else lives with its element.
 *
 * Each colour token `--pg-color-<name>` is read once, here, into `--pg-c-<name>`, whose
 * default depends on the scheme; the elements' styles use only `--pg-c-<name>`. So a
 * merchant's `--pg-color-*` wins in both schemes, and a scheme is one list of defaults.
 * The scheme: `theme="dark"` or `theme="light"` on the element, else the customer's
 * `prefers-color-scheme`. Both palettes keep every text at 4.5:1 or more.
 */
import {css, unsafeCSS} from 'lit';

/** Colour tokens and their light defaults. */
const LIGHT = {
  text: '#1f1f1f',
  muted: '#595959',
  border: '#8a8a8a',
  background: '#fff',
  surface: 'transparent',
  focus: '#1a56db',
  error: '#b3261e',
  success: '#146c2e',
  button: '#1a56db',
  'button-text': '#fff',
  brand: '#595959',
};

/** The dark defaults: the form paints its own surface, so it reads on any page. */
const DARK: typeof LIGHT = {
  text: '#e8e8ea',
  muted: '#b4b4ba',
  border: '#8e8e96',
  background: '#2a2a30',
  surface: '#1b1b1f',
  focus: '#8ab4f8',
  error: '#ffb4ab',
  success: '#7ad68f',
  button: '#8ab4f8',
  'button-text': '#0b1d3a',
  brand: '#6e6e78',
};

/** `--pg-c-text: var(--pg-color-text, #1f1f1f); …` for one palette (constants only). */
const tokens = (palette: typeof LIGHT, scheme: string) =>
  unsafeCSS(
    `color-scheme:${scheme};` +
      Object.entries(palette)
        .map(([name, value]) => `--pg-c-${name}:var(--pg-color-${name},${value});`)
        .join(''),
  );

export const sharedStyles = css`
  :host {
    ${tokens(LIGHT, 'light')}
    font-family: var(--pg-font-family, inherit);
    font-size: var(--pg-font-size, 1rem);
    color: var(--pg-c-text);
    background: var(--pg-c-surface);
    line-height: 1.4;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${tokens(DARK, 'dark')}
    }
  }
  :host([theme='dark']) {
    ${tokens(DARK, 'dark')}
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
    color: var(--pg-c-error);
  }
  .status--success {
    color: var(--pg-c-success);
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
