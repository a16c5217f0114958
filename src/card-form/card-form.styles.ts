/** Styles of `<pg-card-form>`: a plain, readable form that needs no styling of its own. */
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
    gap: var(--pg-spacing, 0.75rem);
  }
  .field {
    display: flex;
    flex-direction: column;
    min-width: 0;
  }
  .field__label {
    font-weight: 500;
    margin-bottom: 0.25rem;
  }
  .field__hint {
    font-weight: 400;
    color: var(--pg-color-muted, #595959);
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
    background: var(--pg-color-background, #fff);
    border: 1px solid var(--pg-color-border, #8a8a8a);
    border-radius: var(--pg-radius, 6px);
  }
  .field--number .field__input {
    padding-inline-end: 4rem;
  }
  .field__input:focus-visible {
    outline: 2px solid var(--pg-color-focus, #1a56db);
    outline-offset: 1px;
  }
  .field__input[aria-invalid='true'] {
    border-color: var(--pg-color-error, #b3261e);
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
    color: var(--pg-color-error, #b3261e);
  }
  .brand {
    position: absolute;
    inset-inline-end: 0.5rem;
    min-width: 2.75rem;
    padding: 0.125rem 0.25rem;
    font-size: 0.6875rem;
    font-weight: 700;
    letter-spacing: 0.02em;
    text-align: center;
    color: var(--pg-color-brand, #1f1f1f);
    border: 1px solid currentColor;
    border-radius: 3px;
  }
  .brand:empty {
    visibility: hidden;
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
    color: var(--pg-color-button-text, #fff);
    background: var(--pg-color-button, #1a56db);
    border: 0;
    border-radius: var(--pg-radius, 6px);
    cursor: pointer;
  }
  .button:focus-visible {
    outline: 2px solid var(--pg-color-focus, #1a56db);
    outline-offset: 2px;
  }
  .button:disabled {
    cursor: progress;
    opacity: 0.8;
  }
`;
