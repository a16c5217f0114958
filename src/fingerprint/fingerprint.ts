/**
 * `<pg-fingerprint>`: puts the browser fingerprint, as JSON, into a merchant's own form
 * under the element's `name`, for merchants who post card data through their own pages
 * and only need the 3-D Secure browser data.
 */
import {LitElement, css} from 'lit';
import {defineElement} from '../internal/define-element.js';
import {collectBrowserFingerprint} from './collect.js';
import type {ClientFingerprint} from '../protocol/checkout.js';
import {issueWarning} from '../internal/dev-mode.js';

/**
 * Contributes the browser fingerprint (EMV 3DS browser data, all values strings) as one
 * JSON string to the form it sits in. It renders nothing.
 *
 * @summary Adds `browser_fingerprint` JSON to a merchant's own form.
 *
 * @example
 * ```html
 * <form method="post" action="/pay">
 *   <pg-fingerprint name="fingerprint"></pg-fingerprint>
 * </form>
 * ```
 */
@defineElement('pg-fingerprint')
export class PgFingerprint extends LitElement {
  /**
   * The reactive properties and their attributes, declared here rather than with Lit's
   * `@property`/`@state` decorators: their code (and the decorator helper's) cost the CDN
   * file 0.3 kB gzip. The fields below keep their types, defaults and documentation.
   */
  static override properties = {
    name: {reflect: true},
  };

  static formAssociated = true;
  static override styles = css`
    :host {
      display: none;
    }
  `;

  /** Name of the form field that receives the JSON. */
  name = 'browser_fingerprint';

  private readonly internals: ElementInternals;

  constructor() {
    super();
    this.internals = this.attachInternals();
  }

  /** The fingerprint as collected now. */
  get fingerprint(): ClientFingerprint {
    return collectBrowserFingerprint();
  }

  /** The JSON the form receives. */
  get value(): string {
    return JSON.stringify(this.fingerprint);
  }

  /** The form the element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.internals.form;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.refresh();
    if (!this.closest('form') && !this.getAttribute('form')) {
      issueWarning(
        'fingerprint-no-form',
        '<pg-fingerprint> is not inside a <form>; nothing will be submitted.',
      );
    }
  }

  /** Collects the fingerprint again (screen or time zone may have changed). */
  refresh(): void {
    this.internals.setFormValue(this.value);
  }

  formResetCallback(): void {
    this.refresh();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pg-fingerprint': PgFingerprint;
  }
}
