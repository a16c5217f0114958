/**
 * Styles of `<pg-3ds-redirect>`: its status line's buttons. The challenge dialog's (iframe
 * mode) load with the first challenge that opens in one: `challenge-dialog.styles.ts`.
 */
import {css} from 'lit';

export const threeDSRedirectStyles = css`
  :host {
    display: block;
  }
  .button {
    font: inherit;
    padding: 0.25rem 0.75rem;
    border: 1px solid var(--_pg-border);
    border-radius: var(--pg-radius, 6px);
    background: transparent;
    color: inherit;
    cursor: pointer;
  }
  .button:focus-visible {
    outline: 2px solid var(--_pg-focus);
    outline-offset: 2px;
  }
`;
