/**
 * `<pg-3ds-redirect>`: follows a 3-D Secure challenge and finds out how it ended. It sends
 * the customer to the bank's `userActionUrl` (a top-level redirect, or a modal iframe of an
 * EMV challenge window size), keeping only the order reference in `sessionStorage`; on the
 * return page (`resolve`) and after an iframe challenge it asks the merchant's status route
 * for the final state, never trusting the query string, and shows and emits the outcome.
 */
import {LitElement, html, nothing} from 'lit';
import {defineElement} from '../internal/define-element.js';
import {ORDER_QUERY_PARAM, type StatusResponse} from '../protocol/checkout.js';
import {
  PgErrorEvent,
  PgFailureEvent,
  PgSuccessEvent,
  PgThreeDSCancelEvent,
} from '../events/events.js';
import {AsyncController, systemClock, type Clock} from '../internal/async-controller.js';
import {DEV_MODE, issueWarning} from '../internal/dev-mode.js';
import {sharedStyles} from '../internal/shared.styles.js';
import {LocaleController, type CheckoutMessages} from '../i18n/messages.js';
import {pollStatus, StatusError} from './poll-status.js';
import {pageScriptsRan, readPendingOrder, writePendingOrder} from './return-page.js';
import {threeDSRedirectStyles} from './three-ds-redirect.styles.js';
import {challengeDialog, styleDialog} from './challenge-dialog.js';
import {statusText} from './status-text.js';

/** How the challenge is shown. */
export const THREE_DS_MODES = ['redirect', 'iframe'] as const;
/**
 * One of {@link THREE_DS_MODES}: `redirect` (the whole page goes to the bank) or `iframe` (a modal
 * over the page).
 */
export type ThreeDSMode = (typeof THREE_DS_MODES)[number];

/** EMV 3DS challenge window sizes: width × height in CSS pixels, or full screen. */
export const CHALLENGE_WINDOW_SIZES = {
  '01': {width: 250, height: 400},
  '02': {width: 390, height: 400},
  '03': {width: 500, height: 600},
  '04': {width: 600, height: 400},
  '05': 'full',
} as const;
/** A key of {@link CHALLENGE_WINDOW_SIZES}: the EMV 3DS window size code, `01` to `05`. */
export type ChallengeWindowSize = keyof typeof CHALLENGE_WINDOW_SIZES;

/** What the element is doing. */
export const REDIRECT_STATES = [
  'idle',
  'redirecting',
  'challenge',
  'checking',
  'success',
  'failure',
  'error',
] as const;
/** One of {@link REDIRECT_STATES}: what `<pg-3ds-redirect>` is doing (its `state` property). */
export type RedirectState = (typeof REDIRECT_STATES)[number];

/**
 * Sends the customer through a 3-D Secure challenge and reports the final outcome, which it
 * reads from the merchant's status route.
 *
 * @summary Follows a 3-D Secure challenge (redirect or modal iframe) and resolves its outcome.
 *
 * @event {PgSuccessEvent} pg-success - The status route reports the payment succeeded.
 * @event {PgFailureEvent} pg-failure - The status route reports the payment failed.
 * @event {PgErrorEvent} pg-error - The status could not be learned before the deadline, or the order is unknown.
 * @event {PgThreeDSCancelEvent} pg-3ds-cancel - The customer cancelled the challenge (Cancel or Escape); the status is checked once its `waitUntil` promises settle.
 *
 * @csspart dialog - The modal `<dialog>` of iframe mode.
 * @csspart frame - The challenge `<iframe>`.
 * @csspart cancel - The dialog's cancel button.
 * @csspart status - The status line (polite live region).
 * @csspart retry - The "check again" button shown after a timeout.
 *
 * @cssproperty --pg-font-family - Font of the texts.
 * @cssproperty --pg-font-size - Base font size.
 * @cssproperty --pg-color-text - Text colour.
 * @cssproperty --pg-color-border - Borders of the dialog and buttons.
 * @cssproperty --pg-color-background - Dialog background.
 * @cssproperty --pg-color-focus - Focus ring.
 * @cssproperty --pg-color-error - Failure and error texts.
 * @cssproperty --pg-color-success - Success text.
 * @cssproperty --pg-color-surface - Background of the element (light: none; dark: painted).
 * @cssproperty --pg-radius - Corner radius.
 * @cssproperty --pg-spacing - Space above the status line.
 * @cssproperty --pg-backdrop - Backdrop behind the dialog.
 */
@defineElement('pg-3ds-redirect')
export class PgThreeDSRedirect extends LitElement {
  static override styles = [sharedStyles, threeDSRedirectStyles];
  /**
   * The reactive properties and their attributes, declared here rather than with Lit's
   * `@property`/`@state` decorators: their code (and the decorator helper's) cost the CDN
   * file 0.3 kB gzip. The fields below keep their types, defaults and documentation.
   */
  static override properties = {
    mode: {},
    windowSize: {attribute: 'window-size'},
    statusEndpoint: {attribute: 'status-endpoint'},
    resolve: {type: Boolean},
    returnUrl: {attribute: 'return-url'},
    timeout: {type: Number},
    pollInterval: {type: Number, attribute: 'poll-interval'},
    noStatus: {type: Boolean, attribute: 'no-status'},
    messages: {attribute: false},
    navigate: {attribute: false},
    state: {state: true},
    lastStatus: {state: true},
    frameUrl: {state: true},
    errorMessage: {state: true},
    canRetry: {state: true},
  };

  /** `redirect` (top-level navigation) or `iframe` (a modal dialog on this page). */
  mode: ThreeDSMode = 'redirect';

  /** EMV challenge window size for iframe mode: `01` 250×400 … `04` 600×400, `05` full screen. */
  windowSize: ChallengeWindowSize = '05';

  /** The merchant's status route (`GET …?order=<ref>` answering a `StatusResponse`). */
  statusEndpoint = '';

  /** On a return page: resolve the pending order as soon as the element is connected. */
  resolve = false;

  /**
   * Iframe mode: the challenge is over when the frame reaches a URL starting with this one
   * (default: any page of this origin).
   */
  returnUrl = '';

  /** Deadline, in milliseconds, for learning the final status. */
  timeout = 60_000;

  /** First wait, in milliseconds, between status requests; it doubles up to 8 s. */
  pollInterval = 1000;

  /** Hide the status line (when a surrounding element shows the outcome itself). */
  noStatus = false;

  /** Overrides of the built-in texts. */
  messages: Partial<CheckoutMessages> | undefined;

  /** Performs a top-level navigation; replace it to observe or veto redirects. */
  navigate: (url: string) => void = (url) => {
    window.location.assign(url);
  };

  /** Where the status deadline and the waits between requests are measured (tests pass a manual one). */
  clock: Clock = systemClock;

  /** What the element is doing now. */
  state: RedirectState = 'idle';

  /** The last status the server reported, if any (read-only). */
  lastStatus: StatusResponse | undefined;

  private frameUrl = '';
  private errorMessage = '';
  private canRetry = false;

  // Getters rather than Lit's `@query`, whose module the CDN file would carry for these two.
  private get dialog(): HTMLDialogElement | null {
    return this.shadowRoot?.querySelector('dialog') ?? null;
  }

  private get frame(): HTMLIFrameElement | null {
    return this.shadowRoot?.querySelector('iframe') ?? null;
  }

  private readonly locale = new LocaleController(this);
  private readonly statusTask = new AsyncController<StatusResponse>(this);
  private orderRef = '';

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.resolve) {
      // Not before the page's own scripts have run: they may still be adding listeners.
      void Promise.all([this.updateComplete, pageScriptsRan()]).then(() => {
        if (this.isConnected) void this.resolveReturn();
      });
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.frameUrl = '';
  }

  /** The order this page should resolve: the `order` query parameter, else the one kept before leaving. */
  pendingOrderRef(): string | null {
    const fromQuery = new URL(location.href).searchParams.get(ORDER_QUERY_PARAM);
    return fromQuery || readPendingOrder();
  }

  /**
   * Sends the customer to `userActionUrl`. Keeps only `orderRef` (in `sessionStorage`)
   * so the return page can resume.
   */
  async start(userActionUrl: string, orderRef: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(userActionUrl, document.baseURI);
    } catch {
      url = new URL('about:blank');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      this.fail('bad_response', 'The 3-D Secure address is not an http(s) URL.', false, orderRef);
      return;
    }
    this.orderRef = orderRef;
    writePendingOrder(orderRef);
    this.errorMessage = '';
    this.canRetry = false;
    if (this.mode === 'iframe') {
      this.state = 'challenge';
      if (await styleDialog(this.renderRoot as ShadowRoot, PgThreeDSRedirect.elementStyles)) {
        // Closed or taken off the page while the styles loaded: no dialog to open.
        if (this.state !== 'challenge' || !this.isConnected) return;
        this.frameUrl = url.href;
        await this.updateComplete;
        if (this.dialog && !this.dialog.open) this.dialog.showModal();
        return;
      }
    }
    this.state = 'redirecting';
    await this.updateComplete;
    this.navigate(url.href);
  }

  /** On a return page: resolves the pending order (also what the `resolve` attribute does). */
  resolveReturn(): Promise<StatusResponse | undefined> {
    const ref = this.pendingOrderRef();
    if (!ref) {
      this.fail('missing_order', this.text().missingOrder, false);
      return Promise.resolve(undefined);
    }
    return this.check(ref);
  }

  /**
   * Asks the status route until the state of `orderRef` is final or the deadline passes,
   * then shows and emits the outcome. Safe to repeat: it only reads.
   */
  async check(orderRef: string = this.orderRef): Promise<StatusResponse | undefined> {
    this.orderRef = orderRef;
    if (!this.statusEndpoint) {
      if (DEV_MODE)
        issueWarning('3ds-no-status', '<pg-3ds-redirect> needs a status-endpoint attribute.');
      this.fail('misconfigured', this.text().serverError, false, orderRef);
      return undefined;
    }
    this.state = 'checking';
    this.errorMessage = '';
    this.canRetry = false;
    try {
      const status = await this.statusTask.run((signal) =>
        pollStatus({
          endpoint: this.statusEndpoint,
          orderRef,
          timeout: this.timeout,
          interval: this.pollInterval,
          signal,
          onProgress: (s) => (this.lastStatus = s),
          clock: this.clock,
        }),
      );
      if (!status) return undefined;
      this.lastStatus = status;
      const detail = {orderRef, code: status.code ?? '', message: status.message ?? ''};
      if (status.state === 'success') {
        this.state = 'success';
        this.dispatchEvent(new PgSuccessEvent(detail));
      } else {
        this.state = 'failure';
        this.dispatchEvent(new PgFailureEvent(detail));
      }
      return status;
    } catch (error) {
      if (error instanceof StatusError) {
        const message = error.code === 'timeout' ? this.text().timeout : this.text().serverError;
        this.fail(error.code, message, error.retryable, orderRef, error.status);
      } else {
        this.fail('network', this.text().networkError, true, orderRef);
      }
      return undefined;
    }
  }

  /** Closes the challenge dialog, if open, and stops any status polling. */
  close(): void {
    this.statusTask.abort();
    this.dialog?.close();
    this.frameUrl = '';
    if (this.state === 'challenge' || this.state === 'checking') this.state = 'idle';
  }

  private text(): CheckoutMessages {
    return this.locale.messages(this.messages);
  }

  private fail(
    code: PgErrorEvent['detail']['code'],
    message: string,
    retryable: boolean,
    orderRef?: string,
    status?: number,
  ): void {
    this.state = 'error';
    this.errorMessage = message;
    this.canRetry = retryable && !!orderRef;
    this.dispatchEvent(
      new PgErrorEvent({
        code,
        message,
        retryable,
        ...(orderRef ? {orderRef} : {}),
        ...(status ? {status} : {}),
      }),
    );
  }

  private onFrameLoad(): void {
    let href: string;
    try {
      // Readable only once the frame is back on this origin (the merchant's return URL).
      href = this.frame?.contentWindow?.location.href ?? '';
    } catch {
      return;
    }
    if (!href || href === 'about:blank') return;
    if (this.returnUrl && !href.startsWith(new URL(this.returnUrl, document.baseURI).href)) return;
    this.dialog?.close();
    this.frameUrl = '';
    void this.check();
  }

  private onCancel(event?: Event): void {
    event?.preventDefault();
    this.dialog?.close();
    this.frameUrl = '';
    this.state = 'checking';
    const cancel = new PgThreeDSCancelEvent({orderRef: this.orderRef});
    this.dispatchEvent(cancel);
    // The customer may have finished before cancelling: ask rather than assume — once
    // whoever listens (the card form) has told the server the challenge was abandoned.
    void cancel.settled().then(() => this.check());
  }

  protected override render() {
    const t = this.text();
    const busy = this.state === 'checking' || this.state === 'redirecting';
    return html`
      ${
        this.mode === 'iframe'
          ? challengeDialog({
              t,
              size: CHALLENGE_WINDOW_SIZES[this.windowSize] ?? CHALLENGE_WINDOW_SIZES['05'],
              frameUrl: this.frameUrl,
              cancel: (event) => this.onCancel(event),
              frameLoaded: () => this.onFrameLoad(),
            })
          : nothing
      }
      <div
        part="status"
        class="status status--${this.state}"
        role="status"
        ?hidden=${this.noStatus}
      >
        ${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${statusText(
          this.state,
          t,
          this.lastStatus?.reason,
          this.errorMessage,
        )}
      </div>
      ${
        this.canRetry && !this.noStatus
          ? html`<button part="retry" class="button" type="button" @click=${() => this.check()}>
              ${t.checkAgain}
            </button>`
          : nothing
      }
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pg-3ds-redirect': PgThreeDSRedirect;
  }
}
