// <pg-card-form> and a saturated companion: a real HTTP server (web-test-runner.config.mjs,
// `saturatedCompanion`) answers the first payment of an order `503` with error code `busy`
// and `Retry-After`, as the companion does when its work in flight is at its limit, and the
// next one with a success. The form says the shop is busy and that nothing was charged, in
// the customer's language; it offers "Try again" but holds it for the wait the server asked
// (measured on the form's clock, which the test moves), sends nothing before, and then
// resends the very same attempt.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgErrorEvent} from '../../src/events/events.js';
import {en} from '../../src/i18n/messages.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {loadMessages} from '../../src/i18n/messages.js';
import {buttonOf, fillCard, statusOf, until} from './helpers.js';
import {ManualClock, settle} from './clock.js';

before(() => loadMessages('uk'));

let orders = 0;
/** A form paying a fresh order through the saturated companion, on a manual clock. */
async function busyForm(path: string, lang = 'en') {
  const orderRef = `busy-${Date.now()}-${orders++}`;
  const el = await fixture<PgCardForm>(
    html`<pg-card-form lang=${lang} endpoint=${path} order-ref=${orderRef}></pg-card-form>`,
  );
  const clock = new ManualClock(Date.now());
  el.clock = clock;
  return {el, clock, orderRef};
}

/** The attempt ids the server was sent for `orderRef`. */
async function attemptsOf(orderRef: string): Promise<string[]> {
  const response = await fetch(`/__pg__/busy/log?order=${encodeURIComponent(orderRef)}`);
  return (await response.json()) as string[];
}

describe('pg-card-form: 503 busy with Retry-After from a real server', () => {
  it('says the shop is busy, holds "Try again" for the wait, then resends the same attempt', async () => {
    const {el, clock, orderRef} = await busyForm('/__pg__/busy/3/pay');
    const error = new Promise<PgErrorEvent>((resolve) =>
      el.addEventListener('pg-error', resolve, {once: true}),
    );
    await fillCard(el);
    buttonOf(el).click();
    expect((await error).detail).to.deep.include({
      orderRef,
      code: 'busy',
      status: 503,
      retryable: true,
    });
    await el.updateComplete;
    expect(el.state).to.equal('error');
    expect(statusOf(el)).to.equal('The shop is busy. Nothing was charged; try again in 3 s.');
    const button = buttonOf(el);
    expect(button.textContent!.trim()).to.equal(en.retry);
    expect(button.disabled, 'held while the server asks to wait').to.equal(true);

    // Before the wait is over nothing is sent, whether pressed or submitted in code.
    button.click();
    await el.submit();
    await settle();
    expect(await attemptsOf(orderRef)).to.have.length(1);

    await clock.runUntil(() => !buttonOf(el).disabled, 'the end of the wait');
    await el.updateComplete;
    expect(buttonOf(el).textContent!.trim()).to.equal(en.retry);
    buttonOf(el).click();
    await until(() => el.state === 'success', 'the success');
    const attempts = await attemptsOf(orderRef);
    expect(attempts).to.have.length(2);
    expect(attempts[0], 'nothing was done: the same attempt again').to.equal(attempts[1]);
  });

  it('waits exactly as long as Retry-After says, read from the header when the body has no wait', async () => {
    const {el, clock, orderRef} = await busyForm('/__pg__/busy/7h/pay');
    const start = clock.now();
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'error', 'the busy answer');
    await el.updateComplete;
    expect(statusOf(el)).to.equal('The shop is busy. Nothing was charged; try again in 7 s.');
    expect(buttonOf(el).disabled).to.equal(true);
    await clock.runUntil(() => !buttonOf(el).disabled, 'the end of the wait');
    expect(clock.now() - start, 'held 7 s by the form’s clock').to.equal(7000);
    buttonOf(el).click();
    await until(() => el.state === 'success', 'the success');
    expect(await attemptsOf(orderRef)).to.have.length(2);
  });

  it('says it in the customer’s language', async () => {
    const {el} = await busyForm('/__pg__/busy/4/pay', 'uk');
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'error', 'the busy answer');
    await el.updateComplete;
    expect(statusOf(el)).to.equal(uk.busy.replace('{n}', '4'));
    expect(buttonOf(el).textContent!.trim()).to.equal(uk.retry);
    await expect(el).to.be.accessible();
  });
});
