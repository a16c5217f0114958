/**
 * Styles of `<pg-card-form>`: a plain, readable form that needs no styling of its own. The
 * fields of a row (expiry and code, first and last name) share their label, input and
 * error rows through a subgrid, so a label that wraps in a narrow column or a long
 * language moves its neighbour's label down with it, never one input out of line. The
 * colours are the scheme's tokens (`--pg-c-*`, from `shared.styles.ts`).
 */
import {css} from 'lit';

export const cardFormStyles = css`
  :host {
    display: block;
    max-width: var(--pg-max-width, 28rem);
  }
  .form {
    margin: 0;
  }
  .fieldset {
    margin: 0;
    padding: 0;
    border: 0;
    min-width: 0;
  }
  .row {
    display: grid;
    grid-template-columns: 1fr 1fr;
    column-gap: var(--pg-spacing, 0.75rem);
  }
  .field {
    display: flex;
    flex-direction: column;
    min-width: 0;
  }
  .row > .field {
    display: grid;
    grid-row: span 3;
    grid-template-rows: subgrid;
  }
  .row .field__label {
    align-self: end;
  }
  .field__label {
    font-weight: 500;
    margin-bottom: 0.25rem;
    overflow-wrap: anywhere;
  }
  .field__hint {
    white-space: nowrap;
    font-weight: 400;
    color: var(--pg-c-muted);
  }
  .field__control {
    position: relative;
    display: flex;
    align-items: center;
  }
  .field__input {
    box-sizing: border-box;
    width: 100%;
    height: var(--pg-input-height, 2.75rem);
    padding: 0 0.75rem;
    font: inherit;
    font-variant-numeric: tabular-nums;
    color: inherit;
    background: var(--pg-c-background);
    border: 1px solid var(--pg-c-border);
    border-radius: var(--pg-radius, 6px);
  }
  .field__input::placeholder {
    color: var(--pg-c-muted);
  }
  .field--number .field__input {
    padding-inline-end: 3.5rem;
  }
  .field__input:focus-visible {
    outline: 2px solid var(--pg-c-focus);
    outline-offset: 1px;
  }
  .field__input[aria-invalid='true'] {
    border-color: var(--pg-c-error);
  }
  .field__input:disabled,
  .field__input:read-only {
    opacity: 0.75;
  }
  .field__error {
    min-height: 1.25rem;
    margin: 0.125rem 0 0.5rem;
    font-size: 0.875em;
    line-height: 1.25rem;
    color: var(--pg-c-error);
  }
  .brand {
    position: absolute;
    inset-inline-end: 0.5rem;
    width: 2.5rem;
    height: 1.5rem;
  }
  .brand__card {
    fill: var(--pg-c-brand);
  }
  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 100%;
    min-height: var(--pg-input-height, 2.75rem);
    padding: 0 1rem;
    font: inherit;
    font-weight: 600;
    color: var(--pg-c-button-text);
    background: var(--pg-c-button);
    border: 0;
    border-radius: var(--pg-radius, 6px);
    cursor: pointer;
  }
  .button:focus-visible {
    outline: 2px solid var(--pg-c-focus);
    outline-offset: 2px;
  }
  .button:disabled {
    cursor: progress;
    opacity: 0.8;
  }
`;
