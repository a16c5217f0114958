/** Styles of `<pg-3ds-redirect>`: the challenge dialog and its frame sizes. */
import {css} from 'lit';

export const threeDSRedirectStyles = css`
  :host {
    display: block;
  }
  .dialog {
    padding: 0;
    border: 1px solid var(--_pg-border);
    border-radius: var(--pg-radius, 6px);
    background: var(--_pg-background);
    color: inherit;
    max-width: 100vw;
    max-height: 100vh;
  }
  .dialog::backdrop {
    background: var(--pg-backdrop, rgb(0 0 0 / 0.5));
  }
  .dialog--full {
    width: 100vw;
    height: 100vh;
    border: 0;
    border-radius: 0;
  }
  .dialog__bar {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: 0.5rem;
    padding: 0.25rem 0.5rem;
    font-size: 0.875em;
  }
  .dialog__title {
    margin: 0;
    font-size: inherit;
    font-weight: 600;
  }
  .frame {
    display: block;
    border: 0;
    max-width: 100%;
  }
  .dialog--full .frame {
    width: 100vw;
    height: calc(100vh - 2.5rem);
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
