/**
 * How `<pg-card-form>` hands a payment over to `<pg-3ds-redirect>` when the answer is
 * `3ds_required` or `processing`: it waits for the redirect element (the merchant's, or the
 * form's own once rendered), listens to its outcome and reports it to the form, tells the
 * merchant's abandon route when the customer cancels the challenge (before the element
 * checks the status; a new payment waits for it, so it cannot meet the old challenge), and
 * stops listening on the outcome, on a newer hand-off, or when the form leaves the page. A Lit reactive controller, so the last happens on its own.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';
import {CHECKOUT_ROUTES, type StatusResponse} from '../protocol/checkout.js';
import type {PgErrorCode} from '../events/events.js';
import type {PgThreeDSRedirect} from '../three-ds-redirect/three-ds-redirect.js';
import {sendAbandon} from './pay.js';

/** What the form does with the redirect element's outcome. */
export interface HandoffOutcome {
  success(): void;
  /** `reason` is the status route's failure reason (`abandoned` after a cancelled challenge). */
  failure(reason: string | undefined): void;
  /** The status is not known (`code` says why): `retryable` when checking again may tell (`last`: what is known). */
  error(code: PgErrorCode, retryable: boolean, last: StatusResponse | undefined): void;
  /** The customer cancelled the challenge: the form may be used again at once. */
  cancelled(): void;
}

/** What one hand-off is about. */
export interface Handoff {
  /** The form's pay route: the abandon route sits beside it. */
  endpoint: string;
  orderRef: string;
  /** The attempt the challenge belongs to (told to the abandon route on cancel). */
  attemptId: string | undefined;
}

/** Another route of the companion: `endpoint` with `/pay` replaced by `route`. */
export function siblingRoute(endpoint: string, route: string): string {
  const pay = CHECKOUT_ROUTES.pay;
  return endpoint.endsWith(pay)
    ? endpoint.slice(0, -pay.length) + route
    : endpoint.replace(/\/?$/, route);
}

export class ThreeDSHandoff implements ReactiveController {
  private readonly locate: () => Promise<PgThreeDSRedirect>;
  private readonly outcome: HandoffOutcome;
  private listening: AbortController | undefined;
  private redirect: PgThreeDSRedirect | undefined;
  /** The abandon request of a cancelled challenge, while it is in flight. */
  private abandoning: Promise<unknown> | undefined;

  /** `locate` resolves with the redirect element to hand over to (rendering it if need be). */
  constructor(
    host: ReactiveControllerHost,
    locate: () => Promise<PgThreeDSRedirect>,
    outcome: HandoffOutcome,
  ) {
    this.locate = locate;
    this.outcome = outcome;
    host.addController(this);
  }

  /** Waits for the redirect element, follows its outcome, then gives it `work`. */
  async handOver(handoff: Handoff, work: (redirect: PgThreeDSRedirect) => void): Promise<void> {
    const redirect = await this.locate();
    this.follow(redirect, handoff);
    work(redirect);
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

  private follow(redirect: PgThreeDSRedirect, {endpoint, orderRef, attemptId}: Handoff): void {
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
    outcome('pg-success', () => this.outcome.success());
    outcome('pg-failure', (e) =>
      this.outcome.failure(redirect.lastStatus?.reason ?? e.detail.code),
    );
    outcome('pg-error', (e) =>
      this.outcome.error(e.detail.code, e.detail.retryable, redirect.lastStatus),
    );
    // The customer cancelled the challenge: the server writes the attempt off before the
    // status check, so paying again (this card or another) starts a new attempt at once.
    redirect.addEventListener(
      'pg-3ds-cancel',
      (e) => {
        if (attemptId) {
          const abandoning = sendAbandon(siblingRoute(endpoint, CHECKOUT_ROUTES.abandon), {
            orderRef: e.detail.orderRef || orderRef,
            attemptId,
          });
          this.abandoning = abandoning;
          void abandoning.then(() => {
            if (this.abandoning === abandoning) this.abandoning = undefined;
          });
          e.waitUntil(abandoning);
        }
        this.outcome.cancelled();
      },
      options,
    );
  }
}
