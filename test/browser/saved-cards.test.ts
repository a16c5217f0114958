// <pg-card-form> with the order route: the server's total on the Pay button (over the
// attributes), the saved-card choice (radio group, keyboard, screen-reader names, axe),
// one-click pay by id, the consent box (never ticked by default), removal with
// confirmation, an expired card shown and not selectable. That no token reaches the
// browser is proven end to end (test/e2e/saved-cards.test.ts).
import {expect, fixture, html} from '@open-wc/testing';
import {sendKeys} from '@web/test-runner-commands';
import '../../src/index.js';
import type {PgCardForm} from '../../src/card-form/card-form.js';
import type {OrderResponse, PayRequest, SavedCardView} from '../../src/protocol/checkout.js';
import {
  buttonOf,
  fillCard,
  json,
  statusOf,
  stubFetch,
  until,
  type RecordedRequest,
} from './helpers.js';

const year = new Date().getFullYear() + 2;
const VISA_CARD: SavedCardView = {
  id: 'sc_aaaaaaaaaaaaaaaaaaaaaaaa',
  mask: '424242******4242',
  expMonth: 12,
  expYear: year,
  expired: false,
};
const MC_CARD: SavedCardView = {
  id: 'sc_bbbbbbbbbbbbbbbbbbbbbbbb',
  mask: '545454******5454',
  expMonth: 3,
  expYear: year,
  expired: false,
};
const OLD_CARD: SavedCardView = {
  id: 'sc_cccccccccccccccccccccccc',
  mask: '400000******0002',
  expMonth: 1,
  expYear: 2020,
  expired: true,
};

/** A companion: the order route answers `cards` (undefined: no customer identified). */
function companion(
  cards: SavedCardView[] | undefined,
  total = {amount: '1250.50', currency: 'UAH'},
) {
  let list = cards && [...cards];
  const order = (orderRef: string): OrderResponse => ({
    orderRef,
    ...total,
    ...(list ? {savedCards: list} : {}),
  });
  return stubFetch((r: RecordedRequest) => {
    const body = r.body as Record<string, string>;
    if (r.url.endsWith('/order')) return json(order(body['orderRef']!));
    if (r.url.endsWith('/saved-cards/remove')) {
      list = list?.filter((c) => c.id !== body['savedCardId']);
      return json(order(body['orderRef']!));
    }
    return json({outcome: 'success', orderRef: body['orderRef'], code: '1000', message: 'ok'});
  });
}

const root = (el: PgCardForm) => el.shadowRoot!;
const radios = (el: PgCardForm) => [
  ...root(el).querySelectorAll<HTMLInputElement>('input[name="pg-saved-card"]'),
];
const pays = (stub: ReturnType<typeof stubFetch>) =>
  stub.calls.filter((c) => c.url.endsWith('/pay')).map((c) => c.body as PayRequest);

async function form(attrs = 'offer-save-card', amount = '', currency = '') {
  const el = await fixture<PgCardForm>(
    html`<pg-card-form
      endpoint="/checkout/pay"
      order-ref="ord-1"
      amount=${amount}
      currency=${currency}
      ?offer-save-card=${attrs.includes('offer-save-card')}
      ?order-details=${attrs.includes('order-details')}
    ></pg-card-form>`,
  );
  return el;
}

describe('<pg-card-form> order details and saved cards', () => {
  let stub: ReturnType<typeof stubFetch>;
  afterEach(() => stub?.restore());

  it('shows the server total on the Pay button, over the amount and currency attributes', async () => {
    stub = companion(undefined);
    const el = await form('order-details', '9.99', 'EUR');
    expect(buttonOf(el).textContent).to.contain('9.99');
    await until(() => buttonOf(el).textContent!.includes('1,250.50'));
    expect(buttonOf(el).textContent).not.to.contain('9.99');
    const orderCall = stub.calls.find((c) => c.url.endsWith('/checkout/order'))!;
    expect(orderCall.method).to.equal('POST');
    expect(orderCall.headers.get('X-PG-Checkout')).to.equal('1');
    expect(orderCall.headers.get('traceparent')).to.match(
      /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$/,
    );
  });

  it('keeps the attributes when the order route cannot answer, and lets go of its answer', async () => {
    // The error's body is read or cancelled, never left hanging: an unread body holds its
    // connection, and the page's network never goes idle (pg-checkout-verify-page waited
    // out its timeout on the example's checkout page for that).
    let released = false;
    const text = new TextEncoder().encode('{"error":{"code":"not_found","message":"no"}}');
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          released = true;
          controller.enqueue(text);
          controller.close();
        },
        cancel() {
          released = true;
        },
      },
      {highWaterMark: 0},
    );
    stub = stubFetch(
      () => new Response(body, {status: 404, headers: {'Content-Type': 'application/json'}}),
    );
    const el = await form('order-details', '9.99', 'EUR');
    await until(() => stub.calls.length > 0);
    await until(() => released);
    await el.updateComplete;
    expect(buttonOf(el).textContent).to.contain('9.99');
  });

  it('asks nothing without order-details or offer-save-card', async () => {
    stub = companion([VISA_CARD]);
    const el = await form('', '9.99', 'EUR');
    await el.updateComplete;
    expect(stub.calls.length).to.equal(0);
    expect(radios(el).length).to.equal(0);
  });

  it('lists saved cards as a radio group above "Use a new card", the first one chosen', async () => {
    stub = companion([VISA_CARD, MC_CARD]);
    const el = await form();
    await until(() => radios(el).length === 3);
    const legend = root(el).querySelector('fieldset.saved legend')!;
    expect(legend.textContent).to.contain('Saved cards');
    expect(radios(el).map((r) => r.checked)).to.deep.equal([true, false, false]);
    expect(root(el).textContent).to.contain('•••• 4242');
    expect(root(el).textContent).to.contain(`Expires 12/${String(year % 100)}`);
    // The brand marks load on demand, as soon as saved cards are shown (not on focus).
    await until(() => root(el).querySelector('svg[data-brand="mastercard"]') !== null);
    // The card fields are hidden while a saved card pays.
    expect(root(el).querySelector<HTMLInputElement>('#number')!.closest('[hidden]')).not.to.equal(
      null,
    );
    await expect(el).to.be.accessible();
  });

  it('pays with one click: the saved card id, no card data and no consent field', async () => {
    stub = companion([VISA_CARD]);
    const el = await form();
    await until(() => radios(el).length === 2);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    const [body] = pays(stub);
    expect(body!.savedCardId).to.equal(VISA_CARD.id);
    expect(body!.card).to.equal(undefined);
    expect(body!.saveCard).to.equal(undefined);
  });

  it('is used by keyboard: arrows move between cards, the new card shows the fields, Enter pays', async () => {
    stub = companion([VISA_CARD, MC_CARD]);
    const el = await form();
    await until(() => radios(el).length === 3);
    radios(el)[0]!.focus();
    await sendKeys({press: 'ArrowDown'});
    await el.updateComplete;
    expect(radios(el)[1]!.checked).to.equal(true);
    await sendKeys({press: 'ArrowDown'});
    await el.updateComplete;
    expect(radios(el)[2]!.checked).to.equal(true);
    expect(root(el).querySelector('#number')!.closest('[hidden]')).to.equal(null);
    await sendKeys({press: 'ArrowUp'});
    await el.updateComplete;
    await sendKeys({press: 'Enter'});
    await until(() => el.state === 'success');
    expect(pays(stub)[0]!.savedCardId).to.equal(MC_CARD.id);
  });

  it('shows an expired card as expired, and it cannot be chosen', async () => {
    stub = companion([OLD_CARD, VISA_CARD]);
    const el = await form();
    await until(() => radios(el).length === 3);
    expect(radios(el)[0]!.disabled).to.equal(true);
    expect(radios(el)[0]!.checked).to.equal(false);
    expect(radios(el)[1]!.checked).to.equal(true);
    const described = root(el).getElementById(radios(el)[0]!.getAttribute('aria-describedby')!);
    expect(described!.textContent).to.contain('Expired');
    await expect(el).to.be.accessible();
  });

  it('offers to save a new card, unticked; consent goes with the card only when ticked', async () => {
    stub = companion([]);
    const el = await form();
    const box = () => root(el).querySelector<HTMLInputElement>('input[name="pg-save-card"]');
    await until(() => box() !== null);
    expect(box()!.checked).to.equal(false);
    expect(box()!.closest('label')!.textContent).to.contain('Save this card for next time');
    await expect(el).to.be.accessible();
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    expect(pays(stub)[0]!.saveCard).to.equal(undefined);
    expect(pays(stub)[0]!.card!.number).to.equal('4242424242424242');
  });

  it('sends consent when the customer ticks the box', async () => {
    stub = companion([]);
    const el = await form();
    const box = () => root(el).querySelector<HTMLInputElement>('input[name="pg-save-card"]');
    await until(() => box() !== null);
    box()!.click();
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    expect(pays(stub)[0]!.saveCard).to.equal(true);
  });

  it('offers no saving when the server identifies no customer', async () => {
    stub = companion(undefined);
    const el = await form();
    await until(() => stub.calls.length > 0);
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 50));
    expect(root(el).querySelector('input[name="pg-save-card"]')).to.equal(null);
  });

  it('removes a card only after confirmation, by keyboard, and says so', async () => {
    stub = companion([VISA_CARD, MC_CARD]);
    const el = await form();
    await until(() => radios(el).length === 3);
    const remove = root(el).querySelector<HTMLButtonElement>('[part="saved-card-remove"]')!;
    expect(remove.getAttribute('aria-label')).to.contain('Visa •••• 4242');
    remove.focus();
    await sendKeys({press: 'Enter'});
    await until(() => root(el).querySelector('#confirm-remove') !== null);
    expect(root(el).activeElement?.id).to.equal('confirm-remove');
    expect(stub.calls.some((c) => c.url.endsWith('/remove'))).to.equal(false);
    await expect(el).to.be.accessible();
    // Escape cancels: nothing removed.
    await sendKeys({press: 'Escape'});
    await until(() => root(el).querySelector('#confirm-remove') === null);
    expect(radios(el).length).to.equal(3);
    remove.click();
    await until(() => root(el).querySelector('#confirm-remove') !== null);
    await sendKeys({press: 'Enter'});
    await until(() => radios(el).length === 2);
    const call = stub.calls.find((c) => c.url.endsWith('/checkout/saved-cards/remove'))!;
    expect(call.body).to.deep.equal({orderRef: 'ord-1', savedCardId: VISA_CARD.id});
    expect(root(el).querySelector('.saved__notice')!.textContent).to.contain('Card removed.');
    expect(radios(el)[0]!.checked).to.equal(true); // the remaining card, ready to pay
  });

  it('after the last card is removed, says so and shows the new card, focused', async () => {
    stub = companion([VISA_CARD]);
    const el = await form();
    await until(() => radios(el).length === 2);
    root(el).querySelector<HTMLButtonElement>('[part="saved-card-remove"]')!.click();
    await until(() => root(el).querySelector('#confirm-remove') !== null);
    root(el).querySelector<HTMLButtonElement>('#confirm-remove')!.click();
    await until(() => radios(el).length === 0);
    expect(root(el).querySelector('.saved__notice')!.textContent).to.contain('Card removed.');
    expect(root(el).querySelector('#number')!.closest('[hidden]')).to.equal(null);
    await until(() => root(el).activeElement?.id === 'number');
    await expect(el).to.be.accessible();
  });

  it('shows a refused saved card in the customer language', async () => {
    stub = stubFetch((r) =>
      r.url.endsWith('/order')
        ? json({orderRef: 'ord-1', amount: '1.00', currency: 'UAH', savedCards: [VISA_CARD]})
        : json({
            outcome: 'failure',
            orderRef: 'ord-1',
            code: 'saved_card_expired',
            reason: 'saved_card_expired',
            message: 'x',
          }),
    );
    const el = await form();
    await until(() => radios(el).length === 2);
    buttonOf(el).click();
    await until(() => el.state === 'failure');
    expect(statusOf(el)).to.equal('This card has expired.');
  });

  it('shows the brand the server names, over what the mask tells', async () => {
    // The mask says Visa; the server knows better (and names a brand the mask cannot tell).
    const named: SavedCardView = {...VISA_CARD, brand: 'mastercard'};
    const blank: SavedCardView = {...MC_CARD, mask: '******5454', brand: 'American-Express '};
    stub = companion([named, blank]);
    const el = await form();
    await until(() => radios(el).length === 3);
    await until(() => root(el).querySelectorAll('svg[data-brand]').length === 2);
    const marks = [...root(el).querySelectorAll('svg[data-brand]')];
    expect(marks.map((m) => m.getAttribute('data-brand'))).to.deep.equal([
      'mastercard',
      'american-express',
    ]);
    expect(marks[0]!.getAttribute('aria-label')).to.equal('Mastercard');
    const removes = [...root(el).querySelectorAll('[part~="saved-card-remove"]')];
    expect(removes[0]!.getAttribute('aria-label')).to.contain('Mastercard •••• 4242');
    await expect(el).to.be.accessible();
  });

  it('ignores a brand name it does not know, and tells the brand from the mask', async () => {
    const odd: SavedCardView = {...VISA_CARD, brand: 'space-card'};
    const hostile: SavedCardView = {...MC_CARD, brand: '<img src=x onerror=alert(1)>'};
    const proto: SavedCardView = {...OLD_CARD, expired: false, brand: '__proto__'};
    stub = companion([odd, hostile, proto]);
    const el = await form();
    await until(() => radios(el).length === 4);
    await until(() => root(el).querySelectorAll('svg[data-brand]').length === 3);
    const marks = [...root(el).querySelectorAll('svg[data-brand]')];
    expect(marks.map((m) => m.getAttribute('data-brand'))).to.deep.equal([
      'visa',
      'mastercard',
      'visa',
    ]);
    expect(root(el).querySelector('img')).to.equal(null);
    expect(radios(el)[0]!.checked).to.equal(true);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    expect(pays(stub)[0]!.savedCardId).to.equal(VISA_CARD.id);
  });

  it('takes the card number at once, while the order look-up is still unanswered', async () => {
    // Interactive means typeable: the look-up (and the chunks it loads) must never hold the
    // card fields back, disabled or hidden, until the companion answers.
    let answer: (r: Response) => void = () => {};
    const pending = new Promise<Response>((resolve) => (answer = resolve));
    stub = stubFetch((r) => (r.url.endsWith('/order') ? pending : json({})));
    const el = await form('offer-save-card order-details');
    await until(() => stub.calls.some((c) => c.url.endsWith('/order')));
    const number = root(el).querySelector<HTMLInputElement>('#number')!;
    expect(number.matches(':disabled')).to.equal(false);
    expect(number.readOnly).to.equal(false);
    expect(number.closest('[hidden]')).to.equal(null);
    number.focus();
    expect(root(el).activeElement).to.equal(number);
    await sendKeys({type: '4242'});
    await el.updateComplete;
    expect(number.value).to.equal('4242');
    answer(json({orderRef: 'ord-1', amount: '1250.50', currency: 'UAH'}));
    await until(() => buttonOf(el).textContent!.includes('1,250.50'));
    expect(number.value).to.equal('4242');
  });

  it('when the order route is rate limited: the attribute total and a new card, no alarm', async () => {
    // A 429 on the look-up does not stop the customer paying with a card typed in (payments
    // are counted apart): the form stays as without saved cards, and says nothing of it.
    stub = stubFetch((r) =>
      r.url.endsWith('/order')
        ? json({error: {code: 'rate_limited', message: 'too many requests', retryAfter: 60}}, 429)
        : json({outcome: 'success', orderRef: 'ord-1', code: '1000', message: 'ok'}),
    );
    const el = await form('offer-save-card', '9.99', 'EUR');
    await until(() => stub.calls.some((c) => c.url.endsWith('/order')));
    await new Promise((r) => setTimeout(r, 50));
    await el.updateComplete;
    expect(buttonOf(el).textContent).to.contain('9.99');
    expect(radios(el).length).to.equal(0);
    expect(root(el).querySelector('input[name="pg-save-card"]')).to.equal(null);
    expect(root(el).querySelector('#number')!.closest('[hidden]')).to.equal(null);
    expect(statusOf(el)).to.equal('');
    await fillCard(el);
    buttonOf(el).click();
    await until(() => el.state === 'success');
    expect(pays(stub)[0]!.card).not.to.equal(undefined);
  });
});
