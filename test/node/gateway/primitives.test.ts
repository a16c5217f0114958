/**
 * Field-level rules of the gateway model: exact decimal amounts (with property tests of
 * the formatting round trip), ISO codes, dates, times, local timestamps and card fields.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Amount,
  amountFromMinor,
  amountText,
  amountToMinor,
  CardNumber,
  cardNotExpired,
  CardToken,
  Country,
  Currency,
  Cvv,
  DateString,
  formatGatewayTimestamp,
  luhnValid,
  OffsetDateTime,
  parseGatewayTimestamp,
  Timestamp,
  TimeString,
} from '../../../src/server/gateway/index.js';

/** The decimal text of a minor-unit integer, built with integers only. */
function minorText(minor: number): string {
  const whole = Math.floor(minor / 100);
  const cents = minor % 100;
  if (cents === 0) return String(whole);
  return `${whole}.${String(cents).padStart(2, '0').replace(/0$/, '')}`;
}

describe('amounts', () => {
  test('accepts the smallest positive amount, 0.01', () => {
    assert.equal(amountText(0.01), '0.01');
    assert.equal(Amount.parse(0.01), 0.01);
  });

  test('refuses zero, negative amounts and more than two decimals', () => {
    for (const bad of [0, -1, -0.01, 1.001, 0.001, 10.999]) {
      assert.equal(amountText(bad), undefined, String(bad));
      assert.equal(Amount.safeParse(bad).success, false, String(bad));
    }
  });

  test('refuses binary float noise such as 0.1 + 0.2', () => {
    assert.equal(amountText(0.1 + 0.2), undefined);
    assert.equal(Amount.safeParse(0.1 + 0.2).success, false);
    assert.equal(Amount.safeParse(1.0400000000000000355).success, true, '1.04 itself is exact');
  });

  test('refuses NaN, infinities, exponent notation and non-numeric text', () => {
    for (const bad of [
      NaN,
      Infinity,
      -Infinity,
      1e21,
      1e-7,
      '1e2',
      'ten',
      '',
      ' 1',
      '01.5',
      '.5',
    ]) {
      assert.equal(Amount.safeParse(bad).success, false, String(bad));
    }
  });

  test('refuses text with more significant digits than a double carries exactly', () => {
    assert.equal(amountText('999999999999999.99'), undefined);
    assert.equal(amountText('99999999999.99'), '99999999999.99');
  });

  test('puts 10.1 on the wire as 10.1 and decimal text as its number', () => {
    assert.equal(JSON.stringify({amount: Amount.parse(10.1)}), '{"amount":10.1}');
    assert.equal(JSON.stringify({amount: Amount.parse('10.10')}), '{"amount":10.1}');
    assert.equal(JSON.stringify({amount: Amount.parse('7')}), '{"amount":7}');
  });

  test('amountFromMinor turns minor units into the exact decimal', () => {
    assert.equal(amountFromMinor(1040), 10.4);
    assert.equal(amountFromMinor(1), 0.01);
    assert.equal(amountFromMinor(1010), 10.1);
    for (const bad of [0, -5, 1.5, Number.MAX_SAFE_INTEGER]) {
      assert.throws(() => amountFromMinor(bad), RangeError, String(bad));
    }
  });

  test('amountToMinor refuses what is not a gateway amount', () => {
    assert.equal(amountToMinor('10.1'), 1010);
    assert.equal(amountToMinor(0.07), 7);
    assert.throws(() => amountToMinor(0.1 + 0.2), RangeError);
  });

  test('property: minor units → amount → JSON → amount → minor units round-trips exactly', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 99_999_999_999_99}), (minor) => {
        const amount = amountFromMinor(minor);
        const wire = JSON.stringify(amount);
        assert.equal(wire, minorText(minor));
        assert.equal(amountText(amount), wire);
        assert.equal(amountToMinor(amount), minor);
        const back = Amount.parse(JSON.parse(wire));
        assert.equal(back, amount);
        assert.equal(amountToMinor(wire), minor);
      }),
      {numRuns: 500},
    );
  });

  test('property: any amount with a third decimal digit is refused', () => {
    fc.assert(
      fc.property(
        fc.integer({min: 1, max: 99_999_999}).filter((m) => m % 10 !== 0),
        (thousandths) => {
          const text = `${Math.floor(thousandths / 1000)}.${String(thousandths % 1000).padStart(3, '0')}`;
          assert.equal(amountText(text), undefined);
          assert.equal(amountText(Number(text)), undefined);
        },
      ),
      {numRuns: 300},
    );
  });

  test('property: sums of valid amounts are valid only when their float is exact', () => {
    fc.assert(
      fc.property(
        fc.integer({min: 1, max: 100_000}),
        fc.integer({min: 1, max: 100_000}),
        (a, b) => {
          const sum = amountFromMinor(a) + amountFromMinor(b);
          const text = amountText(sum);
          if (text !== undefined) assert.equal(amountToMinor(text), a + b);
          else assert.notEqual(String(sum), minorText(a + b));
        },
      ),
      {numRuns: 300},
    );
  });
});

describe('ISO codes', () => {
  test('accepts the currencies XTS and UAH', () => {
    assert.equal(Currency.safeParse('XTS').success, true);
    assert.equal(Currency.safeParse('UAH').success, true);
  });

  test("refuses the unknown currency 'ABC' and lower-case 'uah'", () => {
    for (const bad of ['ABC', 'uah', 'UA', 'UAHH', 980]) {
      assert.equal(Currency.safeParse(bad).success, false, String(bad));
    }
  });

  test("accepts the country UA and refuses 'UK', 'ZZ' and 'ua'", () => {
    assert.equal(Country.safeParse('UA').success, true);
    for (const bad of ['UK', 'ZZ', 'ua', 'UKR']) {
      assert.equal(Country.safeParse(bad).success, false, bad);
    }
  });
});

describe('dates and times', () => {
  test('a date is YYYY-MM-DD and a real calendar day', () => {
    assert.equal(DateString.safeParse('1990-02-28').success, true);
    assert.equal(DateString.safeParse('2024-02-29').success, true);
    for (const bad of [
      '1990-02-30',
      '2023-02-29',
      '1990-2-28',
      '28.02.1990',
      '1990-02-28T00:00:00',
      '19900228',
    ]) {
      assert.equal(DateString.safeParse(bad).success, false, bad);
    }
  });

  test('a time is HH:MM:SS on a 24-hour clock', () => {
    for (const ok of ['00:00:00', '23:59:59', '09:30:00']) {
      assert.equal(TimeString.safeParse(ok).success, true, ok);
    }
    for (const bad of ['24:00:00', '12:60:00', '12:00:60', '12:00', '9:30:00', '12:00:00Z']) {
      assert.equal(TimeString.safeParse(bad).success, false, bad);
    }
  });

  test('a register date carries an offset', () => {
    assert.equal(OffsetDateTime.safeParse('2026-01-31T00:00:00.000+00:00').success, true);
    assert.equal(OffsetDateTime.safeParse('2026-01-31T00:00:00.000Z').success, true);
    assert.equal(OffsetDateTime.safeParse('2026-01-31T00:00:00.000').success, false);
    assert.equal(OffsetDateTime.safeParse('2026-01-31').success, false);
  });

  test('a record timestamp parses into its local fields without a zone', () => {
    assert.deepEqual(parseGatewayTimestamp('2026-01-31T23:59:58.007'), {
      year: 2026,
      month: 1,
      day: 31,
      hour: 23,
      minute: 59,
      second: 58,
      millisecond: 7,
    });
    assert.equal(parseGatewayTimestamp('2026-01-31T23:59:58')?.millisecond, 0);
    assert.equal(parseGatewayTimestamp('2026-01-31T23:59:58.5')?.millisecond, 500);
  });

  test('a timestamp with a zone or an impossible value is not the gateway format', () => {
    for (const bad of [
      '2026-01-31T12:00:00.000Z',
      '2026-01-31T12:00:00+02:00',
      '2026-02-30T12:00:00',
      '2026-01-31T24:00:00',
      '2026-01-31 12:00:00',
    ]) {
      assert.equal(parseGatewayTimestamp(bad), undefined, bad);
      assert.equal(Timestamp.safeParse(bad).success, false, bad);
    }
  });

  test('property: formatting a date and parsing it gives back its UTC fields', () => {
    fc.assert(
      fc.property(
        fc.date({min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true}),
        (d) => {
          const t = parseGatewayTimestamp(formatGatewayTimestamp(d));
          assert.deepEqual(t, {
            year: d.getUTCFullYear(),
            month: d.getUTCMonth() + 1,
            day: d.getUTCDate(),
            hour: d.getUTCHours(),
            minute: d.getUTCMinutes(),
            second: d.getUTCSeconds(),
            millisecond: d.getUTCMilliseconds(),
          });
        },
      ),
      {numRuns: 200},
    );
  });
});

describe('card fields', () => {
  test('the Luhn check accepts test cards and refuses a changed digit', () => {
    assert.equal(luhnValid('4242424242424242'), true);
    assert.equal(luhnValid('5454545454545454'), true);
    assert.equal(luhnValid('4242424242424241'), false);
  });

  test('a card number is 12 to 19 digits passing Luhn', () => {
    assert.equal(CardNumber.safeParse('4242424242424242').success, true);
    for (const bad of [
      '4242 4242 4242 4242',
      '4242424242424241',
      '42424242424',
      '4'.repeat(20),
      4242424242424242,
    ]) {
      assert.equal(CardNumber.safeParse(bad).success, false, String(bad));
    }
  });

  test('a CVV is 3 or 4 digits only', () => {
    for (const ok of ['123', '1234']) assert.equal(Cvv.safeParse(ok).success, true, ok);
    for (const bad of ['12', '12345', '12a', ' 123', 123]) {
      assert.equal(Cvv.safeParse(bad).success, false, String(bad));
    }
  });

  test('a card token may carry the rcr: prefix', () => {
    assert.equal(CardToken.safeParse('abc123').success, true);
    assert.equal(CardToken.safeParse('rcr:abc123').success, true);
    assert.equal(CardToken.safeParse('').success, false);
    assert.equal(CardToken.safeParse('has space').success, false);
  });

  test('a card stays valid through the last day of its expiry month', () => {
    const now = new Date(Date.UTC(2026, 4, 31, 23, 0));
    assert.equal(cardNotExpired(5, 2026, now), true);
    assert.equal(cardNotExpired(4, 2026, now), false);
    assert.equal(cardNotExpired(12, 2025, now), false);
  });
});
