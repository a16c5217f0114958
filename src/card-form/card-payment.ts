/**
 * One payment of `<pg-card-form>`, from Pay pressed to the outcome shown: it picks the
 * attempt (the one "Try again" resends, else a new one), sends the request (`pay.ts`),
 * turns the pay route's answer into a step of the form's state (`form-machine.ts`), and
 * hands a 3-D Secure challenge or a status check over to `<pg-3ds-redirect>`
 * (`three-ds-handoff.ts`), whose outcome comes back as steps too. The element keeps its
 * fields; this controller asks it for what it needs through `PaymentForm`.
 */
import type {LitElement, ReactiveController} from 'lit';
import type {CheckoutMessages} from '../i18n/messages.js';
import {errorText} from '../i18n/outcome-text.js';
import {AsyncController, randomId, type Clock} from '../internal/async-controller.js';
import {DEV_MODE, issueWarning} from '../internal/dev-mode.js';
import {CHECKOUT_ROUTES} from '../protocol/checkout.js';
import type {PgThreeDSRedirect, ThreeDSMode} from '../three-ds-redirect/three-ds-redirect.js';
import {FormMachine} from './form-machine.js';
import type {FormStep} from './form-transitions.js';
import {keepsCardData, payRequest, sendPay, type PayResult} from './pay.js';
import {ThreeDSHandoff, siblingRoute, type Handoff} from './three-ds-handoff.js';
import type {FormFields} from './form-fields.js';

/** The element a payment belongs to: its settings, read when they are needed. */
export interface PaymentHost extends LitElement {
  endpoint: string;
  statusEndpoint: string;
  orderRef: string;
  threeDSMode: ThreeDSMode;
  acceptHeader: string;
  clock: Clock;
}

/** What a payment asks of the form beyond its fields. */
export interface PaymentForm {
  /** Whether the form may pay now: enabled, every field valid (else the errors show). */
  ready(): boolean;
  /** The saved card chosen, if any, and the consent to save a new one. */
  choice(): {savedCardId?: string | undefined; consent?: boolean};
  text(): CheckoutMessages;
}

export class CardPayment implements ReactiveController {
  private readonly host: PaymentHost;
  private readonly form: PaymentForm;
  private readonly fields: FormFields;
  private readonly task: AsyncController<PayResult>;
  /** The form's state: the one value, and its moves (`form-machine.ts`). */
  readonly machine: FormMachine;
  readonly handoff: ThreeDSHandoff;

  constructor(host: PaymentHost, fields: FormFields, form: PaymentForm) {
    this.host = host;
    this.fields = fields;
    this.form = form;
    this.task = new AsyncController<PayResult>(host);
    this.machine = new FormMachine(
      host,
      () => host.clock,
      (step) => this.stepped(step),
    );
    this.handoff = new ThreeDSHandoff(
      host,
      () => this.statusEndpoint(),
      (step) => this.machine.move(step),
    );
    host.addController(this);
  }

  hostConnected(): void {
    if (!DEV_MODE) return;
    const {host} = this;
    void host.updateComplete.then(() => {
      if (!host.endpoint)
        issueWarning('no-endpoint', '<pg-card-form> needs an endpoint attribute.');
      if (!host.orderRef)
        issueWarning('no-order-ref', '<pg-card-form> needs an order-ref attribute.');
    });
  }

  /**
   * Validates and sends the payment, as pressing the button does. Resolves when the answer
   * has been handled. A second call while one is in flight does nothing.
   */
  async submit(): Promise<void> {
    const {machine, host, form} = this;
    const {orderRef, endpoint} = host;
    const state = machine.state;
    // The attempt "Try again" resends, else a new one.
    const attemptId = ('retry' in state && state.retry) || randomId();
    const pay: FormStep = {type: 'pay', orderRef, attemptId};
    // Not while paying, nor once paid, nor before the wait the server asked for is over.
    if (this.task.pending || !machine.accepts(pay) || !form.ready()) return;
    const t = form.text();
    if (!endpoint || !orderRef) {
      if (DEV_MODE)
        issueWarning('submit-misconfigured', '<pg-card-form> needs endpoint and order-ref to pay.');
      this.answer(
        {outcome: 'error', code: 'misconfigured', message: '', retrySameAttempt: false},
        t,
      );
      return;
    }
    // `pg-submit` first: cancelled, nothing is sent.
    if (!machine.move(pay)) return;
    const {fields} = this;
    const request = payRequest(
      orderRef,
      attemptId,
      fields.shown(),
      (name) => fields.value(name),
      form.choice(),
      host.acceptHeader,
    );
    let result: PayResult | undefined;
    try {
      await this.handoff.release();
      result = await this.task.run((signal) => sendPay(endpoint, request, signal));
    } catch {
      result = {outcome: 'error', code: 'network', message: '', retrySameAttempt: true};
    } finally {
      // The request object held the CVV: drop what we can reach.
      if (request.card) request.card.cvv = '';
    }
    if (!result) return; // aborted (element removed)
    // A final answer: the code goes. Before a retry it stays in its input, so "Try again"
    // is one click.
    if (!keepsCardData(result)) this.fields.forgetCvv();
    this.answer(result, t);
    this.fields.validity.sync(false);
  }

  /** The merchant's status route: `statusEndpoint`, else the pay route's sibling. */
  statusEndpoint(): string {
    const {host} = this;
    return host.statusEndpoint || siblingRoute(host.endpoint, CHECKOUT_ROUTES.status);
  }

  /** "Check again": asks the status route once more for a payment still processing. */
  checkAgain(): void {
    if (this.machine.move({type: 'check'})) this.followCheck();
  }

  /** Moves the form by the pay route's answer, and follows a challenge or a status check. */
  private answer(result: PayResult, t: CheckoutMessages): void {
    const {machine} = this;
    switch (result.outcome) {
      case 'error':
        machine.move({
          type: 'refused',
          error: result,
          orderRef: this.host.orderRef,
          message: result.message || errorText(t, result.code, result.retryAfter),
        });
        break;
      case 'success':
        machine.move({type: 'paid', response: result});
        break;
      case 'failure':
        machine.move({type: 'declined', response: result});
        break;
      case '3ds_required':
        // Not cancelled (`pg-3ds-required`): the form takes the customer to the bank.
        if (machine.move({type: 'challenged', response: result}))
          this.handOver((redirect) => {
            if (this.host.threeDSMode === 'iframe' || redirect.mode === 'iframe')
              machine.move({type: 'framed'});
            void redirect.start(result.userActionUrl, result.orderRef);
          });
        break;
      case 'processing':
        machine.move({type: 'processing', orderRef: result.orderRef});
        this.followCheck();
    }
  }

  /** What the form does on a step, once the state has moved and before its event. */
  private stepped(step: FormStep): void {
    const {type} = step;
    if (type === 'paid' || type === 'confirmed' || type === 'challenged') this.fields.clearCard();
    // The server refused it: say what is wrong locally, else the likeliest reason.
    if (type === 'refused') this.fields.blame(step.error.field);
  }

  /** Has the redirect element ask the status route how the payment being checked ended. */
  private followCheck(): void {
    this.handOver((redirect, {orderRef}) => void redirect.check(orderRef));
  }

  /**
   * Gives the redirect element `work` for the payment the state follows (a challenge or a
   * status check) and follows its outcome (see `three-ds-handoff.ts`).
   */
  private handOver(work: (redirect: PgThreeDSRedirect, followed: Handoff) => void): void {
    const state = this.machine.state;
    if (!('orderRef' in state)) return;
    const {orderRef, attemptId} = state;
    const followed = {endpoint: this.host.endpoint, orderRef, attemptId};
    void this.handoff.handOver(followed, (redirect) => work(redirect, followed));
  }
}
