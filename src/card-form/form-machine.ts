/**
 * The card form's one state value and the only way it moves: `move` asks the pure
 * `transition` (`form-transitions.ts`) for the next state, refuses what it refuses, and
 * announces the event the transition's row names (`form-events.ts`), after the element's
 * own work for the step (clearing the card, pointing at a field). It also runs the one
 * timer a state can have: the wait a `busy` or `rate_limited` refusal asks for, by the
 * form's clock, ended early when the form leaves the waiting state. Each move renders the
 * form again.
 */
import type {ReactiveControllerHost} from 'lit';
import type {Clock} from '../internal/async-controller.js';
import {waitingIn, type FormState} from './form-state.js';
import {transition, type FormStep} from './form-transitions.js';
import {ASKING, eventOf} from './form-events.js';

export class FormMachine {
  private readonly host: ReactiveControllerHost & EventTarget;
  private readonly clock: () => Clock;
  private readonly work: (step: FormStep) => void;
  /** Where the payment stands: the one value the form keeps of it. */
  private current: FormState = {kind: 'idle'};
  /** Ends the wait of the state shown early: the form left it. */
  private wait: AbortController | undefined;

  /**
   * `clock`: the form's clock, read when a wait starts. `work`: what the element does on a
   * step once the state has moved, before its event goes out.
   */
  constructor(
    host: ReactiveControllerHost & EventTarget,
    clock: () => Clock,
    work: (step: FormStep) => void,
  ) {
    this.host = host;
    this.clock = clock;
    this.work = work;
  }

  get state(): FormState {
    return this.current;
  }

  /** Whether the state would accept `step` now (nothing moves). */
  accepts(step: FormStep): boolean {
    return !!transition(this.current, step);
  }

  /**
   * Moves by `step`. False when the state refused it, when its asking event (`pg-submit`)
   * was cancelled (nothing moved), or when its event was cancelled after the move
   * (`pg-3ds-required`: the merchant takes over).
   */
  move(step: FormStep): boolean {
    const previous = this.current;
    const next = transition(previous, step);
    if (!next) return false;
    const event = eventOf(step, next);
    const asks = ASKING.includes(step.type);
    if (event && asks && !this.host.dispatchEvent(event)) return false;
    this.current = next;
    if (!waitingIn(next)) this.stopWaiting();
    else if (!waitingIn(previous)) this.startWaiting(next);
    this.host.requestUpdate();
    this.work(step);
    return !event || asks || this.host.dispatchEvent(event);
  }

  /** Holds the Pay button for the seconds `state` asks, then moves on (`waited`). */
  private startWaiting(state: FormState): void {
    this.stopWaiting();
    const wait = (this.wait = new AbortController());
    const seconds = 'seconds' in state ? state.seconds : 0;
    this.clock()
      .sleep(seconds * 1000, wait.signal)
      .then(
        () => this.move({type: 'waited'}),
        () => {},
      );
  }

  private stopWaiting(): void {
    this.wait?.abort();
    this.wait = undefined;
  }
}
