/**
 * When a saved card's token stops paying, read from the gateway's `cc_token_expiration`:
 * local time without an offset (gateway-spec.md), a card valid through the end of its
 * month. The token pays through the end of the second it names, until that moment has
 * passed in the earliest time zone (UTC−12, the card expiry rule of `src/rules/card.ts`);
 * an explicit offset is honoured exactly; an unreadable expiry cannot pay.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  savedCardView,
  tokenExpired,
  type SavedCardRecord,
} from '../../../src/server/store/saved-card-records.js';

const at = (iso: string) => Date.parse(iso);
const expired = (tokenExpiresAt: string, now: string) => tokenExpired({tokenExpiresAt}, at(now));

describe('token expiry without an offset (the gateway local time)', () => {
  test('pays on the last day of the month, to its last second, wherever the gateway is', () => {
    assert.equal(expired('2028-12-31T23:59:59', '2028-12-31T00:00:00Z'), false);
    assert.equal(expired('2028-12-31T23:59:59', '2028-12-31T23:59:59.999Z'), false);
  });

  test('on the first day of the next month: still pays while 31 December lasts in UTC−12', () => {
    // Read as UTC, the token would be refused here although it is still 31 December west
    // of Greenwich (and the gateway's zone is not stated).
    assert.equal(expired('2028-12-31T23:59:59', '2029-01-01T00:00:00Z'), false);
    assert.equal(expired('2028-12-31T23:59:59', '2029-01-01T11:59:59.999Z'), false);
    assert.equal(expired('2028-12-31T23:59:59', '2029-01-01T12:00:00Z'), true);
    assert.equal(expired('2028-12-31T23:59:59', '2029-01-02T00:00:00Z'), true);
  });

  test('a leap February ends on the 29th', () => {
    assert.equal(expired('2028-02-29T23:59:59', '2028-03-01T11:00:00Z'), false);
    assert.equal(expired('2028-02-29T23:59:59', '2028-03-01T12:00:00Z'), true);
  });

  test('milliseconds are allowed; a date alone lasts the whole day', () => {
    assert.equal(expired('2028-12-31T23:59:59.000', '2029-01-01T11:59:59Z'), false);
    assert.equal(expired('2028-12-31', '2029-01-01T11:59:59Z'), false);
    assert.equal(expired('2028-12-31', '2029-01-01T12:00:00Z'), true);
  });
});

describe('token expiry with an offset', () => {
  test('Z and ±hh:mm are honoured exactly', () => {
    assert.equal(expired('2028-12-31T23:59:59Z', '2028-12-31T23:59:59.999Z'), false);
    assert.equal(expired('2028-12-31T23:59:59Z', '2029-01-01T00:00:00Z'), true);
    // Kyiv in winter: the month ends at 22:00 UTC.
    assert.equal(expired('2028-12-31T23:59:59+02:00', '2028-12-31T21:59:59.999Z'), false);
    assert.equal(expired('2028-12-31T23:59:59+02:00', '2028-12-31T22:00:00Z'), true);
    // New York: at 05:00 UTC on the 1st.
    assert.equal(expired('2028-12-31T23:59:59-05:00', '2029-01-01T04:59:59.999Z'), false);
    assert.equal(expired('2028-12-31T23:59:59-0500', '2029-01-01T05:00:00Z'), true);
  });
});

describe('an unreadable expiry cannot pay', () => {
  for (const text of [
    '',
    'soon',
    '2028-02-30T00:00:00',
    '2028-13-01T00:00:00',
    '2028-12-31T24:00:00',
  ]) {
    test(JSON.stringify(text), () => {
      assert.equal(expired(text, '2000-01-01T00:00:00Z'), true);
    });
  }
});

describe('the view and the check agree', () => {
  test('the browser is told the same as the pay route checks, at any instant', () => {
    const card: SavedCardRecord = {
      id: 'sc_000000000000000000000000',
      customerId: 'c',
      token: 't',
      mask: '424242******4242',
      tokenExpiresAt: '2030-06-30T23:59:59',
      createdAt: 0,
    };
    fc.assert(
      fc.property(
        fc.integer({min: at('2030-06-29T00:00:00Z'), max: at('2030-07-02T00:00:00Z')}),
        (now) => {
          const view = savedCardView(card, now);
          assert.equal(view.expired, tokenExpired(card, now));
          assert.deepEqual([view.expMonth, view.expYear], [6, 2030]);
        },
      ),
    );
  });

  test('expiry is monotonic: once expired, a token stays expired', () => {
    fc.assert(
      fc.property(
        fc.integer({min: 0, max: 48 * 3600_000}),
        fc.integer({min: 0, max: 48 * 3600_000}),
        (a, b) => {
          const base = at('2030-06-30T00:00:00Z');
          const [early, late] = a <= b ? [a, b] : [b, a];
          const text = '2030-06-30T23:59:59';
          if (expired(text, new Date(base + early).toISOString())) {
            assert.equal(expired(text, new Date(base + late).toISOString()), true);
          }
        },
      ),
    );
  });
});
