// <pg-card-form> and <pg-3ds-redirect> on an order paid before: the pay route's `success`
// marked `alreadyPaid` reads "already paid: nothing was charged, no card was saved" in the
// customer's language, never "Payment successful"; `pg-success` says `alreadyPaid`, so a
// page that goes on to a result page can say it there too. The return page the hosted
// route sends to with `already_paid=1` says the same.
import {expect, fixture, html} from '@open-wc/testing';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {PgThreeDSRedirect} from '../../src/three-ds-redirect/three-ds-redirect.js';
import type {PgSuccessEvent} from '../../src/events/events.js';
import {en, loadMessages} from '../../src/i18n/messages.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {buttonOf, fillCard, json, statusOf, stubFetch, until} from './helpers.js';

before(() => loadMessages('uk'));

const PAID_BEFORE = {
  outcome: 'success',
  orderRef: 'order-9',
  code: '1000',
  message: 'The order was already paid: nothing was charged now.',
  alreadyPaid: true,
};

let stub: ReturnType<typeof stubFetch> | undefined;
afterEach(() => {
  stub?.restore();
  stub = undefined;
  history.replaceState(null, '', location.pathname);
});

async function payOnce(lang: string, answer: unknown) {
  stub = stubFetch(() => json(answer));
  const el = await fixture<PgCardForm>(
    html`<pg-card-form lang=${lang} endpoint="/checkout/pay" order-ref="order-9"></pg-card-form>`,
  );
  const events: PgSuccessEvent[] = [];
  el.addEventListener('pg-success', (e) => events.push(e));
  await fillCard(el);
  buttonOf(el).click();
  await until(() => el.state === 'success');
  await el.updateComplete;
  return {el, events};
}

describe('pg-card-form: an order paid before', () => {
  it('says "already paid", not "Payment successful", and pg-success says alreadyPaid', async () => {
    const {el, events} = await payOnce('en', PAID_BEFORE);
    expect(statusOf(el)).to.equal(en.alreadyPaid);
    expect(statusOf(el)).to.not.equal(en.success);
    expect(events[0]!.detail).to.deep.equal({
      orderRef: 'order-9',
      code: '1000',
      message: PAID_BEFORE.message,
      alreadyPaid: true,
    });
  });

  it('says it, the card not saved, in the customer language', async () => {
    const {el} = await payOnce('uk', {...PAID_BEFORE, cardSaved: false});
    expect(statusOf(el)).to.equal(uk.alreadyPaid);
    expect(uk.alreadyPaid).to.match(/картку не збережено/);
  });

  it('a payment made now still reads "Payment successful"', async () => {
    const {alreadyPaid: _, ...now} = PAID_BEFORE;
    const {el, events} = await payOnce('en', now);
    expect(statusOf(el)).to.equal(en.success);
    expect(events[0]!.detail.alreadyPaid).to.equal(undefined);
  });
});

describe('pg-3ds-redirect: the return page after the hosted route found the order paid', () => {
  it('reads already_paid=1 and says "already paid" once the status route says success', async () => {
    history.replaceState(null, '', `${location.pathname}?order=order-9&already_paid=1`);
    stub = stubFetch(() => json({orderRef: 'order-9', state: 'success', final: true}));
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect lang="en" status-endpoint="/checkout/status"></pg-3ds-redirect>`,
    );
    await el.resolveReturn();
    await el.updateComplete;
    expect(el.state).to.equal('success');
    expect(statusOf(el)).to.equal(en.alreadyPaid);
  });

  it('without already_paid, a success reads "Payment successful"', async () => {
    history.replaceState(null, '', `${location.pathname}?order=order-9`);
    stub = stubFetch(() => json({orderRef: 'order-9', state: 'success', final: true}));
    const el = await fixture<PgThreeDSRedirect>(
      html`<pg-3ds-redirect lang="en" status-endpoint="/checkout/status"></pg-3ds-redirect>`,
    );
    await el.resolveReturn();
    await el.updateComplete;
    expect(statusOf(el)).to.equal(en.success);
  });
});
