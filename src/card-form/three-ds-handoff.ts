/**
 * How `<pg-card-form>` hands a payment over to `<pg-3ds-redirect>` when the answer is
 * `3ds_required` or `processing`: it finds the redirect element (the merchant's, else the
 * form's own, rendered only then), listens to its outcome and reports it to the form as a
 * step of its state (`form-transitions.ts`), tells the merchant's abandon route when the
 * customer cancels the challenge (before the element checks the status; a new payment
 * waits for it, so it cannot meet the old challenge), and stops listening on the outcome,
 * on a newer hand-off, or when the form leaves the page. A Lit reactive controller, so the
 * last happens on its own.
 */
import type {LitElement, ReactiveController} from 'lit';
import {CHECKOUT_ROUTES} from '../protocol/checkout.js';
import type {PgThreeDSRedirect} from '../three-ds-redirect/three-ds-redirect.js';
import type {FormStep} from './form-transitions.js';
import {sendAbandon} from './pay.js';

/** What one hand-off is about. */
export interface Handoff {
  /** The form's pay route: the abandon route sits beside it. */
  endpoint: string;
  orderRef: string;
  /** The attempt the challenge belongs to (told to the abandon route on cancel). */
  attemptId: string;
}

/** Another route of the companion: `endpoint` with `/pay` replaced by `route`. */
export function siblingRoute(endpoint: string, route: string): string {
  const pay = CHECKOUT_ROUTES.pay;
  return endpoint.endsWith(pay)
    ? endpoint.slice(0, -pay.length) + route
    : endpoint.replace(/\/?$/, route);
}

export class ThreeDSHandoff implements ReactiveController {
  private readonly host: LitElement;
  private readonly statusEndpoint: () => string;
  private readonly report: (step: FormStep) => void;
  private listening: AbortController | undefined;
  private redirect: PgThreeDSRedirect | undefined;
  /** The abandon request of a cancelled challenge, while it is in flight. */
  private abandoning: Promise<unknown> | undefined;
  /**
   * Whether the form renders its own `<pg-3ds-redirect>`: only once a payment needs one and
   * the page has none, so a form that never meets 3-D Secure never pays for it.
   */
  ownRedirect = false;

  /**
   * `statusEndpoint`: the form's status route, for a redirect element without one.
   * `report`: takes each outcome, as a step of the form's state.
   */
  constructor(host: LitElement, statusEndpoint: () => string, report: (step: FormStep) => void) {
    this.host = host;
    this.statusEndpoint = statusEndpoint;
    this.report = report;
    host.addController(this);
  }

  /** Finds the redirect element, follows its outcome, then gives it `work`. */
  async handOver(handoff: Handoff, work: (redirect: PgThreeDSRedirect) => void): Promise<void> {
    const redirect = await this.locate();
    this.follow(redirect, handoff);
    work(redirect);
  }

  /** The merchant's own `<pg-3ds-redirect>` (child or anywhere in the document), else ours. */
  private async locate(): Promise<PgThreeDSRedirect> {
    const host = this.host;
    let redirect =
      host.querySelector('pg-3ds-redirect') ?? document.querySelector('pg-3ds-redirect');
    if (!redirect) {
      this.ownRedirect = true;
      host.requestUpdate();
      await host.updateComplete;
      redirect = host.renderRoot.querySelector('pg-3ds-redirect')!;
    }
    if (!redirect.statusEndpoint) redirect.statusEndpoint = this.statusEndpoint();
    return redirect;
  }
  /**
   * Before a new payment: waits for the abandon request of a cancelled challenge (so the
   * server no longer answers with the old challenge), then stops following the redirect
   * element and closes it (its status check of the old payment is over). Synchronous, and
   * `undefined`, when there is nothing to wait for.
   */
  release(): Promise<void> | undefined {
    const done = () => {
      this.cancel();
      this.redirect?.close();
    };
    if (this.abandoning) return this.abandoning.then(done);
    done();
    return undefined;
  }

  /** Stops following the redirect element. */
  cancel(): void {
    this.listening?.abort();
    this.listening = undefined;
  }

  hostDisconnected(): void {
    this.cancel();
  }

  private follow(redirect: PgThreeDSRedirect, handoff: Handoff): void {
    const {endpoint, orderRef, attemptId} = handoff;
    this.cancel();
    const listening = new AbortController();
    this.listening = listening;
    const options = {signal: listening.signal};
    /** An outcome: reported once, then nothing more is heard from this element. */
    const outcome = <K extends 'pg-success' | 'pg-failure' | 'pg-error'>(
      type: K,
      report: (event: HTMLElementEventMap[K]) => void,
    ) =>
      redirect.addEventListener(
        type,
        (e) => {
          report(e);
          listening.abort();
        },
        options,
      );
    this.redirect = redirect;
    outcome('pg-success', () => this.report({type: 'confirmed'}));
    outcome('pg-failure', (e) =>
      this.report({type: 'unpaid', reason: redirect.lastStatus?.reason ?? e.detail.code}),
    );
    outcome('pg-error', ({detail: {code, retryable}}) => {
      const last = redirect.lastStatus;
      this.report({
        type: 'unknown',
        code,
        retryable,
        // The bank was still at it when last asked.
        processing: !!last && !last.final && last.state !== 'none',
        orderRef,
        attemptId,
      });
    });
    // The customer cancelled the challenge: the server writes the attempt off before the
    // status check, so paying again (this card or another) starts a new attempt at once.
    redirect.addEventListener(
      'pg-3ds-cancel',
      (e) => {
        const abandoning = sendAbandon(siblingRoute(endpoint, CHECKOUT_ROUTES.abandon), {
          orderRef: e.detail.orderRef || orderRef,
          attemptId,
        });
        this.abandoning = abandoning;
        void abandoning.then(() => {
          if (this.abandoning === abandoning) this.abandoning = undefined;
        });
        e.waitUntil(abandoning);
        // At once, not after the server and the status route have answered: paying again
        // (this card or another) waits for the abandon request itself (`release`).
        this.report({type: 'cancelled'});
      },
      options,
    );
  }
}
