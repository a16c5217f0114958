/**
 * Styles of `<pg-card-form>`: a plain, readable form that needs no styling of its own. The
 * fields of a row (expiry and code, first and last name) share their label, input and
 * error rows through a subgrid, so a label that wraps in a narrow column or a long
 * language moves its neighbour's label down with it, never one input out of line. The
 * colours are the scheme's tokens (`--_pg-*`, see `shared.styles.ts`).
 */
import {css} from 'lit';
import {schemed} from '../internal/shared.styles.js';

/** The form's own colours, on top of the shared ones. */
const colours = schemed(
  css`
    --_pg-muted: var(--pg-color-muted, #595959);
    --_pg-button: var(--pg-color-button, #1a56db);
    --_pg-button-text: var(--pg-color-button-text, #fff);
    --_pg-brand: var(--pg-color-brand, #595959);
  `,
  css`
    --_pg-muted: var(--pg-color-muted, #b4b4ba);
    --_pg-button: var(--pg-color-button, #8ab4f8);
    --_pg-button-text: var(--pg-color-button-text, #0b1d3a);
    --_pg-brand: var(--pg-color-brand, #6e6e78);
  `,
);

export const cardFormStyles = css`
  ${colours}
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
    color: var(--_pg-muted);
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
    background: var(--_pg-background);
    border: 1px solid var(--_pg-border);
    border-radius: var(--pg-radius, 6px);
  }
  .field__input::placeholder {
    color: var(--_pg-muted);
  }
  .field--number .field__input {
    padding-inline-end: 3.5rem;
  }
  .field__input:focus-visible {
    outline: 2px solid var(--_pg-focus);
    outline-offset: 1px;
  }
  .field__input[aria-invalid='true'] {
    border-color: var(--_pg-error);
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
    color: var(--_pg-error);
  }
  .brand {
    position: absolute;
    inset-inline-end: 0.5rem;
    width: 2.5rem;
    height: 1.5rem;
  }
  .brand__card {
    fill: var(--_pg-brand);
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
    color: var(--_pg-button-text);
    background: var(--_pg-button);
    border: 0;
    border-radius: var(--pg-radius, 6px);
    cursor: pointer;
  }
  .button:focus-visible {
    outline: 2px solid var(--_pg-focus);
    outline-offset: 2px;
  }
  .button:disabled {
    cursor: progress;
    opacity: 0.8;
  }
`;
