/**
 * Every rule the spec states for payment creation, with boundary values on both sides:
 * amounts, lengths, ISO codes, the birthday format, card data XOR token, the fields each
 * mode requires or refuses, and `init_recurring` with its defaults and limits. Errors name
 * the field and never its value.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  DirectPaymentRequest,
  formatIssues,
  HostedPaymentRequest,
  InitRecurring,
  INTERVAL_UNITS,
  PaymentRequest,
  type FieldIssue,
} from '../../../src/server/gateway/index.js';
import {CARD_CVV, CARD_NUMBER, directRequest, hostedRequest} from './helpers.js';

type Req = Record<string, unknown>;

/** Parses a payment request; the field issues, or `[]` when it is valid. */
function issuesOf(request: Req): FieldIssue[] {
  const parsed = PaymentRequest.safeParse(request);
  return parsed.success ? [] : formatIssues(parsed.error, request);
}

function assertValid(request: Req, note = ''): void {
  assert.deepEqual(issuesOf(request), [], note);
}

/** Asserts the request is refused with an issue on `field` (and, when given, that message). */
function assertRefused(request: Req, field: string, message?: string | RegExp): void {
  const issues = issuesOf(request);
  const hit = issues.find((i) => i.field === field);
  assert.ok(hit, `expected an issue on ${field}, got ${JSON.stringify(issues)}`);
  if (typeof message === 'string') assert.equal(hit.message, message);
  else if (message) assert.match(hit.message, message);
}

const direct = (over: Req = {}): Req => ({...directRequest(), ...over});
const hosted = (over: Req = {}): Req => ({...hostedRequest(), ...over});
const without = (req: Req, field: string): Req => {
  const copy = {...req};
  delete copy[field];
  return copy;
};

describe('payment amount', () => {
  test('0.01 is accepted in both modes', () => {
    assertValid(direct({amount: 0.01}));
    assertValid(hosted({amount: 0.01}));
  });

  for (const bad of [0, -1, 1.001, 0.1 + 0.2]) {
    test(`${bad} is refused, naming amount`, () => {
      assertRefused(
        direct({amount: bad}),
        'amount',
        /positive number with at most 2 decimal places/,
      );
      assertRefused(
        hosted({amount: bad}),
        'amount',
        /positive number with at most 2 decimal places/,
      );
    });
  }

  test('a missing amount is reported as required', () => {
    assertRefused(without(direct(), 'amount'), 'amount', 'is required');
  });
});

describe('payment lengths', () => {
  test('payload of 4000 symbols is accepted, 4001 refused', () => {
    assertValid(direct({payload: 'x'.repeat(4000)}));
    assertRefused(direct({payload: 'x'.repeat(4001)}), 'payload', /at most 4000 symbols/);
  });

  test('payload counts an emoji as one symbol', () => {
    assertValid(direct({payload: '😀'.repeat(4000)}));
    assertValid(hosted({payload: 'x'.repeat(3999) + '😀'}));
    assertRefused(direct({payload: '😀'.repeat(4001)}), 'payload');
    assertRefused(hosted({payload: 'x'.repeat(4000) + '😀'}), 'payload');
  });

  test('order_id of 256 characters is accepted, 257 refused', () => {
    assertValid(direct({order_id: 'o'.repeat(256)}));
    assertRefused(direct({order_id: 'o'.repeat(257)}), 'order_id', /at most 256/);
    assertRefused(hosted({order_id: 'o'.repeat(257)}), 'order_id', /at most 256/);
    assertRefused(direct({order_id: ''}), 'order_id');
  });

  test('description of 2048 characters is accepted, 2049 refused', () => {
    assertValid(hosted({description: 'd'.repeat(2048)}));
    assertRefused(hosted({description: 'd'.repeat(2049)}), 'description', /at most 2048/);
    assertRefused(direct({description: 'd'.repeat(2049)}), 'description', /at most 2048/);
  });
});

describe('payment codes and formats', () => {
  test('currencies XTS and UAH are accepted', () => {
    assertValid(direct({currency: 'XTS'}));
    assertValid(hosted({currency: 'UAH'}));
  });

  test("currencies 'ABC' and 'uah' are refused", () => {
    assertRefused(direct({currency: 'ABC'}), 'currency', /ISO 4217/);
    assertRefused(hosted({currency: 'uah'}), 'currency', /ISO 4217/);
  });

  test("customer_country UA is accepted, 'UK' and 'ZZ' refused", () => {
    assertValid(direct({customer_country: 'UA'}));
    assertRefused(direct({customer_country: 'UK'}), 'customer_country', /ISO 3166-1 alpha-2/);
    assertRefused(hosted({customer_country: 'ZZ'}), 'customer_country', /ISO 3166-1 alpha-2/);
  });

  test('customer_birthday must be yyyy-MM-dd', () => {
    assertValid(direct({customer_birthday: '1990-05-17'}));
    for (const bad of ['17.05.1990', '1990-5-17', '1990-13-01', '1990-05-17T00:00:00']) {
      assertRefused(direct({customer_birthday: bad}), 'customer_birthday', /YYYY-MM-DD/);
    }
  });

  test('method is auth or purchase', () => {
    assertValid(direct({method: 'auth'}));
    assertRefused(direct({method: 'refund'}), 'method', /auth, purchase/);
  });

  test('an unknown field is refused by name', () => {
    assertRefused(direct({cc_numbr: CARD_NUMBER}), 'cc_numbr', 'is not a field of this request');
  });
});

describe('direct payments: card data XOR token', () => {
  const token = () => {
    const r = direct({cc_token: 'tok_123'});
    for (const f of ['cc_number', 'exp_month', 'exp_year', 'card_cvv']) delete r[f];
    return r;
  };

  test('full card data alone is accepted', () => assertValid(direct()));

  test('a token alone is accepted, with or without the rcr: prefix', () => {
    assertValid(token());
    assertValid({...token(), cc_token: 'rcr:7d0a9f'});
  });

  test('card data together with a token is refused', () => {
    const both = direct({cc_token: 'tok_123'});
    for (const f of ['cc_number', 'exp_month', 'exp_year', 'card_cvv']) {
      assertRefused(both, f, /must not be sent with cc_token/);
    }
  });

  test('neither card data nor token is refused, naming cc_number', () => {
    const none = token();
    delete none['cc_token'];
    assertRefused(none, 'cc_number', /^is required/);
  });

  for (const field of ['cc_number', 'exp_month', 'exp_year', 'card_cvv']) {
    test(`partial card data without ${field} is refused: ${field} is required`, () => {
      assertRefused(without(direct(), field), field, /^is required/);
    });
  }

  test('card_cvv is digits only', () => {
    assertRefused(direct({card_cvv: '12a'}), 'card_cvv', /digits/);
    assertRefused(direct({card_cvv: '12'}), 'card_cvv', /digits/);
  });

  test('a card number failing Luhn is refused', () => {
    assertRefused(direct({cc_number: '4242424242424241'}), 'cc_number', /Luhn/);
  });

  test('an expired card is refused', () => {
    assertRefused(direct({exp_month: 1, exp_year: 2020}), 'exp_year', /expired/);
  });
});

describe('required fields', () => {
  const directRequired = [
    'pos_id',
    'method',
    'amount',
    'currency',
    'description',
    'order_id',
    'order_3ds_bypass',
    'customer_fname',
    'customer_lname',
    'customer_email',
    'customer_phone',
    'customer_ip',
    'browser_fingerprint',
  ];
  for (const field of directRequired) {
    test(`a direct payment without ${field} is refused: "${field}: is required"`, () => {
      const req = without(direct(), field);
      assertRefused(req, field, 'is required');
      const parsed = DirectPaymentRequest.safeParse(req);
      assert.equal(parsed.success, false);
    });
  }

  const hostedRequired = [
    'pos_id',
    'method',
    'amount',
    'currency',
    'description',
    'order_id',
    'order_3ds_bypass',
    'customer_email',
    'customer_phone',
  ];
  for (const field of hostedRequired) {
    test(`a hosted payment without ${field} is refused: "${field}: is required"`, () => {
      assertRefused(without(hosted(), field), field, 'is required');
    });
  }

  test('a hosted payment does not need names, IP or browser data', () => {
    assertValid(hosted());
    assertValid(hosted({customer_fname: 'Lesya', customer_lname: 'Ukrainka'}));
  });

  test('every browser_fingerprint value is required and a string', () => {
    const fp = {...(directRequest().browser_fingerprint as Req)};
    delete fp['browserUserAgent'];
    assertRefused(
      direct({browser_fingerprint: fp}),
      'browser_fingerprint.browserUserAgent',
      'is required',
    );
    assertRefused(
      direct({
        browser_fingerprint: {
          ...(directRequest().browser_fingerprint as Req),
          browserColorDepth: 24,
        },
      }),
      'browser_fingerprint.browserColorDepth',
      /string/,
    );
  });

  test('mode is required and must be direct or hosted', () => {
    assertRefused(without(direct(), 'mode'), 'mode', 'is required');
    assertRefused(direct({mode: 'redirect'}), 'mode', /direct or hosted/);
  });
});

describe('hosted payments carry no card fields', () => {
  const directOnly: Req = {
    cc_number: CARD_NUMBER,
    exp_month: 12,
    exp_year: 2030,
    card_cvv: CARD_CVV,
    cc_token: 'tok_1',
    network_transaction_id: 'n1',
    three_d_secure: {cavv: 'a', eci: '05', ds_transaction_id: 'd', status: 'Y'},
    customer_ip: '203.0.113.7',
    customer_referrer: 'https://shop.example/',
    browser_fingerprint: directRequest().browser_fingerprint,
    cryptogram: {},
  };
  for (const [field, value] of Object.entries(directOnly)) {
    test(`a hosted payment with ${field} is refused`, () => {
      assertRefused(hosted({[field]: value}), field, /must not be sent for mode=hosted/);
    });
  }

  test('order_timeout and customer_lang are hosted fields, refused on direct', () => {
    assertValid(hosted({order_timeout: 900, customer_lang: 'uk'}));
    assertRefused(direct({order_timeout: 900}), 'order_timeout', 'is not a field of this request');
    assertRefused(hosted({order_timeout: 1.5}), 'order_timeout');
  });

  test('HostedPaymentRequest alone refuses card data too', () => {
    assert.equal(HostedPaymentRequest.safeParse(hosted({cc_number: CARD_NUMBER})).success, false);
  });
});

describe('three_d_secure', () => {
  test('needs cavv, eci, ds_transaction_id and status; version is optional', () => {
    const tds = {cavv: 'AAABBB', eci: '05', ds_transaction_id: 'f2b1', status: 'Y'};
    assertValid(direct({three_d_secure: tds}));
    assertValid(direct({three_d_secure: {...tds, version: '2.2.0'}}));
    assertRefused(
      direct({three_d_secure: without(tds, 'cavv')}),
      'three_d_secure.cavv',
      'is required',
    );
    assertRefused(direct({three_d_secure: {...tds, version: '2.2'}}), 'three_d_secure.version');
  });
});

describe('init_recurring', () => {
  const base = {interval_unit: 'month', interval_count: 1};
  const parse = (over: Req) => InitRecurring.safeParse({...base, ...over});

  test('every interval_unit of the spec is accepted and others refused', () => {
    for (const unit of INTERVAL_UNITS)
      assert.equal(parse({interval_unit: unit}).success, true, unit);
    for (const bad of ['hour', 'Month', 'days', '']) {
      assertRefused(
        direct({init_recurring: {...base, interval_unit: bad}}),
        'init_recurring.interval_unit',
      );
    }
  });

  test('interval_count 30 is accepted, 31 refused', () => {
    assert.equal(parse({interval_count: 30}).success, true);
    assertRefused(
      direct({init_recurring: {...base, interval_count: 31}}),
      'init_recurring.interval_count',
      /1 to 30/,
    );
    assertRefused(
      hosted({init_recurring: {...base, interval_count: 0}}),
      'init_recurring.interval_count',
    );
    assertRefused(
      hosted({init_recurring: {...base, interval_count: 1.5}}),
      'init_recurring.interval_count',
    );
  });

  test('interval_unit and interval_count are required', () => {
    assertRefused(
      direct({init_recurring: {interval_count: 1}}),
      'init_recurring.interval_unit',
      'is required',
    );
    assertRefused(
      direct({init_recurring: {interval_unit: 'day'}}),
      'init_recurring.interval_count',
      'is required',
    );
  });

  test('retry_attempts defaults to 3; 7 is accepted, 8 refused', () => {
    assert.equal(InitRecurring.parse(base).retry_attempts, 3);
    assert.equal(parse({retry_attempts: 7}).success, true);
    assertRefused(
      direct({init_recurring: {...base, retry_attempts: 8}}),
      'init_recurring.retry_attempts',
      /0 to 7/,
    );
  });

  test('retry_interval_hours defaults to 2 for day and 24 otherwise', () => {
    assert.equal(InitRecurring.parse({...base, interval_unit: 'day'}).retry_interval_hours, 2);
    for (const unit of ['week', 'month', 'quarter', 'year']) {
      assert.equal(
        InitRecurring.parse({...base, interval_unit: unit}).retry_interval_hours,
        24,
        unit,
      );
    }
  });

  test('retry_interval_hours 23 is accepted for day, 24 refused', () => {
    assert.equal(parse({interval_unit: 'day', retry_interval_hours: 23}).success, true);
    assertRefused(
      direct({init_recurring: {...base, interval_unit: 'day', retry_interval_hours: 24}}),
      'init_recurring.retry_interval_hours',
      /at most 23 when interval_unit is day/,
    );
  });

  test('retry_interval_hours 72 is accepted for other units, 73 refused', () => {
    for (const unit of ['week', 'month', 'quarter', 'year']) {
      assert.equal(parse({interval_unit: unit, retry_interval_hours: 72}).success, true, unit);
      assertRefused(
        hosted({init_recurring: {...base, interval_unit: unit, retry_interval_hours: 73}}),
        'init_recurring.retry_interval_hours',
        /at most 72/,
      );
    }
  });

  test('the defaults are filled in the request that is sent', () => {
    const parsed = PaymentRequest.parse(
      direct({init_recurring: {interval_unit: 'day', interval_count: 1}}),
    );
    assert.equal(parsed.init_recurring?.retry_attempts, 3);
    assert.equal(parsed.init_recurring?.retry_interval_hours, 2);
  });

  test('start_date and expiry_date are YYYY-MM-DD, expiry not before start', () => {
    assert.equal(parse({start_date: '2026-02-01', expiry_date: '2027-02-01'}).success, true);
    assertRefused(
      direct({init_recurring: {...base, start_date: '01.02.2026'}}),
      'init_recurring.start_date',
      /YYYY-MM-DD/,
    );
    assertRefused(
      direct({init_recurring: {...base, expiry_date: '2026-2-1'}}),
      'init_recurring.expiry_date',
      /YYYY-MM-DD/,
    );
    assertRefused(
      direct({init_recurring: {...base, start_date: '2026-02-02', expiry_date: '2026-02-01'}}),
      'init_recurring.expiry_date',
      /before start_date/,
    );
  });

  test('time is HH:MM:SS', () => {
    assert.equal(parse({time: '08:00:00'}).success, true);
    assertRefused(
      direct({init_recurring: {...base, time: '8:00'}}),
      'init_recurring.time',
      /HH:MM:SS/,
    );
    assertRefused(
      direct({init_recurring: {...base, time: '24:00:00'}}),
      'init_recurring.time',
      /HH:MM:SS/,
    );
  });

  test('init_recurring.amount follows the amount rule', () => {
    assert.equal(parse({amount: 0.01}).success, true);
    for (const bad of [0, -1, 1.001, 0.1 + 0.2]) {
      assertRefused(
        direct({init_recurring: {...base, amount: bad}}),
        'init_recurring.amount',
        /at most 2 decimal places/,
      );
    }
  });

  test('notification_url must be an absolute URL', () => {
    assert.equal(parse({notification_url: 'https://shop.example/hooks'}).success, true);
    assertRefused(
      direct({init_recurring: {...base, notification_url: '/hooks'}}),
      'init_recurring.notification_url',
    );
  });
});

describe('validation messages never carry values', () => {
  test('a refused card number, CVV and token are named, never echoed', () => {
    const badNumber = '4242424242424241';
    const issues = issuesOf(direct({cc_number: badNumber, card_cvv: '12x4', amount: 0}));
    const text = JSON.stringify(issues);
    assert.ok(issues.some((i) => i.field === 'cc_number'));
    assert.ok(issues.some((i) => i.field === 'card_cvv'));
    assert.ok(!text.includes(badNumber));
    assert.ok(!text.includes('12x4'));
    const tokenIssues = JSON.stringify(issuesOf(hosted({cc_token: 'rcr:secret-token-value'})));
    assert.ok(tokenIssues.includes('cc_token'));
    assert.ok(!tokenIssues.includes('secret-token-value'));
  });
});
