/**
 * Styles shared by the elements: the `--pg-*` design tokens with their defaults, the
 * status line and the progress spinner. Everything else lives with its element.
 */
import {css} from 'lit';

export const sharedStyles = css`
  :host {
    font-family: var(--pg-font-family, inherit);
    font-size: var(--pg-font-size, 1rem);
    color: var(--pg-color-text, #1f1f1f);
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
    color: var(--pg-color-error, #b3261e);
  }
  .status--success {
    color: var(--pg-color-success, #146c2e);
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
