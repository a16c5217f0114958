/**
 * One verdict per value, whoever checks it. For every field the card form collects, the
 * same generated value goes to (a) the form's own check (`checkField`, what
 * `<pg-card-form>` shows), (b) the checkout protocol's `PayRequestSchema`, with the value in
 * its place in an otherwise valid body, and (c) the gateway model's `DirectPaymentRequest`,
 * with the value in its gateway field after the normalisation the server applies. The
 * protocol and the gateway always agree. The form agrees with them too, except that on the
 * card fields it is stricter where card-validator is (src/validation/: a number at a length
 * its brand does not have, an expiry over on the customer's own clock or more than 19 years
 * ahead): it never accepts what they refuse, and what it refuses that they accept,
 * card-validator refuses. When the form accepts, it sends, the server parses and the
 * gateway gets the same text. Generated strings, generated near-misses and fixed edge
 * cases: the four examples, the years 2000–2099 and the last hours of a month in
 * the earliest time zone.
 */
import {describe, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {checkField, fieldValue} from '../../../src/card-form/field-check.js';
import {en} from '../../../src/i18n/messages.js';
import {uk} from '../../../src/i18n/locales/uk.js';
import type {CardField} from '../../../src/events/events.js';
import type {PayRequest} from '../../../src/protocol/checkout.js';
import {FINGERPRINT} from '../checkout/helpers.js';
import {cardNumber} from 'card-validator/dist/card-number.js';
import {expirationDate} from 'card-validator/dist/expiration-date.js';
import {PayRequestSchema} from '../../../src/protocol/schemas.js';
import {normaliseCardNumber, normaliseCvv, luhnValid} from '../../../src/rules/card.js';
import {normaliseEmail, normaliseName, normalisePhone} from '../../../src/rules/customer.js';
import {
  DirectPaymentRequest,
  type DirectPaymentRequestInput,
} from '../../../src/server/gateway/index.js';
import {
  buildDirectRequest,
  validateDirectRequest,
} from '../../../src/server/payments/gateway-request.js';

// card-validator reads the month on the local clock: UTC here, so that the last hours of a
// month in UTC−12 are over for it and not for the gateway.
process.env.TZ = 'UTC';

/** The clock every check below reads: mid-June 2030, so expiry years have room both ways. */
const NOW = Date.UTC(2030, 5, 15, 12);

/** Pins `Date` for this test: the zod schemas read the clock themselves. */
function pinClock(t: TestContext, ms = NOW): void {
  t.mock.timers.enable({apis: ['Date'], now: ms});
}

/** A valid pay body: every card and customer field present. */
function payBody(): PayRequest {
  return {
    orderRef: 'order-1',
    attemptId: 'attempt-1',
    card: {number: '4242424242424242', expMonth: 12, expYear: 2032, cvv: '123', holder: 'ADA L'},
    customer: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+380501234567',
    },
    fingerprint: FINGERPRINT,
  };
}

/** A valid direct payment request as the gateway gets it. */
function directRequest(): DirectPaymentRequestInput {
  return {
    pos_id: '6b0f7d1e-3a52-4c1b-9e7d-2f4a8c9b1d03',
    mode: 'direct',
    method: 'purchase',
    amount: 10.1,
    currency: 'UAH',
    description: 'Order #1',
    order_id: 'order-1',
    order_3ds_bypass: 'supported',
    cc_number: '4242424242424242',
    exp_month: 12,
    exp_year: 2032,
    card_cvv: '123',
    customer_fname: 'Taras',
    customer_lname: 'Shevchenko',
    customer_email: 'taras@example.com',
    customer_phone: '+380501234567',
    customer_ip: '203.0.113.7',
    browser_fingerprint: {
      ...FINGERPRINT,
      browserAcceptHeader: 'text/html',
      browserIpAddress: '203.0.113.7',
    },
  };
}

/** A text field of the form: where it goes in the protocol and at the gateway. */
interface TextField {
  name: Exclude<CardField, 'expiry'>;
  /** Sets the value in a pay body. */
  put(body: PayRequest, value: unknown): void;
  /** Reads the parsed value back. */
  get(body: PayRequest): unknown;
  /** The gateway field, and the normalisation the server applies; none for the holder. */
  gateway?: {key: keyof DirectPaymentRequestInput; normalise(text: string): string};
}

const FIELDS: Record<TextField['name'], TextField> = {
  number: {
    name: 'number',
    put: (b, v) => void (b.card!.number = v as string),
    get: (b) => b.card!.number,
    gateway: {key: 'cc_number', normalise: normaliseCardNumber},
  },
  cvv: {
    name: 'cvv',
    put: (b, v) => void (b.card!.cvv = v as string),
    get: (b) => b.card!.cvv,
    gateway: {key: 'card_cvv', normalise: normaliseCvv},
  },
  holder: {
    name: 'holder',
    put: (b, v) => void (b.card!.holder = v as string),
    get: (b) => b.card!.holder,
  },
  firstName: {
    name: 'firstName',
    put: (b, v) => void (b.customer!.firstName = v as string),
    get: (b) => b.customer!.firstName,
    gateway: {key: 'customer_fname', normalise: normaliseName},
  },
  lastName: {
    name: 'lastName',
    put: (b, v) => void (b.customer!.lastName = v as string),
    get: (b) => b.customer!.lastName,
    gateway: {key: 'customer_lname', normalise: normaliseName},
  },
  email: {
    name: 'email',
    put: (b, v) => void (b.customer!.email = v as string),
    get: (b) => b.customer!.email,
    gateway: {key: 'customer_email', normalise: normaliseEmail},
  },
  phone: {
    name: 'phone',
    put: (b, v) => void (b.customer!.phone = v as string),
    get: (b) => b.customer!.phone,
    gateway: {key: 'customer_phone', normalise: normalisePhone},
  },
};

interface Verdicts {
  form: boolean;
  protocol: boolean;
  gateway: boolean | undefined;
  /** What the form sends, when it accepts. */
  sent?: string;
  /** What the protocol parses, when it accepts. */
  parsed?: unknown;
  /** What the server's builder puts in the gateway field, when the protocol accepts. */
  built?: unknown;
}

/** The three verdicts on `raw` typed into (or sent as) field `f`. */
function verdicts(f: TextField, raw: string): Verdicts {
  const form = checkField(f.name, raw, en, null).valid;
  const body = payBody();
  f.put(body, raw);
  const parsed = PayRequestSchema.safeParse(body);
  let gateway: boolean | undefined;
  let built: unknown;
  if (f.gateway) {
    const request = {...directRequest(), [f.gateway.key]: f.gateway.normalise(raw)};
    gateway = DirectPaymentRequest.safeParse(request).success;
    if (parsed.success) {
      // The real path: the parsed body through the server's request builder and check.
      const b = buildDirectRequest(
        parsed.data,
        {amount: '10.10', currency: 'UAH', description: 'Order #1'},
        {
          posId: '6b0f7d1e-3a52-4c1b-9e7d-2f4a8c9b1d03',
          gatewayOrderId: 'order-1-1-abcdef01',
          customerIp: '203.0.113.7',
          acceptHeader: 'text/html',
          userAgent: 'Mozilla/5.0 (test)',
          serverUrl: 'https://shop.example/checkout/webhook',
          resultUrl: 'https://shop.example/checkout/return?order=order-1',
          order3dsBypass: 'supported',
        },
      );
      const checked = validateDirectRequest(b);
      assert.equal(checked.ok, true, `the server's builder refused ${JSON.stringify(raw)}`);
      built = b.request[f.gateway.key];
    }
  }
  return {
    form,
    protocol: parsed.success,
    gateway,
    ...(form ? {sent: fieldValue(f.name, raw)} : {}),
    ...(parsed.success ? {parsed: f.get(parsed.data)} : {}),
    ...(built !== undefined ? {built} : {}),
  };
}

/**
 * Whether card-validator refuses what field `f` holds where the gateway's rules do not: a
 * card number at a length its brand does not have (the form checks with no brand for the
 * code, so 3 or 4 digits, as the gateway).
 */
function cardValidatorRefuses(f: TextField, raw: string): boolean {
  if (f.name !== 'number') return false;
  const verdict = cardNumber(normaliseCardNumber(raw));
  return verdict.card !== null && !verdict.isValid;
}

/** Asserts that the form, the protocol and the gateway agree on `raw`, and on what is sent. */
function assertAgree(f: TextField, raw: string): Verdicts {
  const v = verdicts(f, raw);
  const where = `${f.name} ${JSON.stringify(raw)}: ${JSON.stringify(v)}`;
  if (v.gateway !== undefined)
    assert.equal(v.gateway, v.protocol, `protocol and gateway disagree on ${where}`);
  if (v.form || !v.protocol || !cardValidatorRefuses(f, raw))
    assert.equal(v.protocol, v.form, `form and protocol disagree on ${where}`);
  if (v.form) {
    assert.equal(v.parsed, v.sent, `the server parses other text than the form sends: ${where}`);
    if (f.gateway) assert.equal(v.built, v.sent, `the gateway gets other text: ${where}`);
    // What the form sends is itself accepted, unchanged (normalising twice changes nothing).
    const again = verdicts(f, v.sent!);
    assert.equal(again.protocol && again.parsed === v.sent, true, `resending ${where}`);
  }
  return v;
}

// ---- generators ----------------------------------------------------------------------

const digitString = (min: number, max: number) =>
  fc.string({unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max});

/** Appends the Luhn check digit. */
function withLuhnDigit(payload: string): string {
  for (let d = 0; d < 10; d++) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

/** Spaces, dashes and other white space put between pieces of `text`. */
const interleave = (text: string, seps: string[]) =>
  fc
    .array(fc.constantFrom(...seps), {minLength: text.length + 1, maxLength: text.length + 1})
    .map((s) => s.map((sep, i) => sep + (text[i] ?? '')).join(''));

/** Strings a customer might type or paste anywhere, plus plain noise. */
const anyText = fc.oneof(
  fc.string({maxLength: 40}),
  fc.string({unit: 'grapheme', maxLength: 20}),
  fc.string({unit: fc.constantFrom(...'0123456789 +-().x@/\u00a0\u2013\t'), maxLength: 40}),
);

const cardNumbers = fc.oneof(
  // Luhn-valid numbers of 10 to 21 digits, with or without separators.
  fc
    .integer({min: 9, max: 20})
    .chain((n) => digitString(n, n))
    .map(withLuhnDigit)
    .chain((n) => fc.oneof(fc.constant(n), interleave(n, ['', '', ' ', '-', '\u00a0', '\t']))),
  digitString(0, 22),
  anyText,
);

const cvvs = fc.oneof(
  digitString(0, 6),
  digitString(0, 6).map((d) => ` ${d}\t`),
  digitString(1, 4).chain((d) => interleave(d, ['', ' ', '-'])),
  anyText,
);

const names = fc.oneof(
  anyText,
  fc.integer({min: 250, max: 262}).map((n) => 'a'.repeat(n)),
  fc.integer({min: 120, max: 134}).map((n) => 'Й'.repeat(n)),
  fc.integer({min: 125, max: 131}).map((n) => '😀'.repeat(n)),
  fc.string({unit: fc.constantFrom(' ', '\t', '\u00a0', '\n'), maxLength: 5}),
);

const emails = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((e) => ` ${e} `),
  fc
    .tuple(
      fc.string({unit: fc.constantFrom(...'abcоляé._+-\'"1 '), minLength: 0, maxLength: 8}),
      fc.string({unit: fc.constantFrom(...'abcприклад.укр-1ü'), minLength: 0, maxLength: 12}),
    )
    .map(([local, domain]) => `${local}@${domain}`),
  anyText,
);

const phones = fc.oneof(
  fc
    .tuple(fc.constantFrom('', '+', '++', ' +'), digitString(0, 34))
    .chain(([plus, d]) =>
      interleave(d, ['', '', ' ', '-', '.', '(', ')', '/', '\u00a0', '\u2013']).map(
        (s) => plus + s,
      ),
    ),
  fc
    .tuple(digitString(6, 12), fc.constantFrom(' ext 2', 'x12', '#', '+1', 'O'))
    .map((p) => p.join('')),
  anyText,
);

const GENERATED: Array<[TextField, fc.Arbitrary<string>]> = [
  [FIELDS.number, cardNumbers],
  [FIELDS.cvv, cvvs],
  [FIELDS.holder, names],
  [FIELDS.firstName, names],
  [FIELDS.lastName, names],
  [FIELDS.email, emails],
  [FIELDS.phone, phones],
];

/** Values picked because they sit on an edge of some rule. */
const EDGES: Record<TextField['name'], string[]> = {
  number: [
    '',
    ' ',
    '4242424242424242',
    '4242 4242 4242 4242',
    '4242-4242-4242-4242',
    ' 4242\u00a04242\t4242 4242\n',
    '4242424242424241',
    '424242424242', // 12 digits, Luhn-valid
    '42424242424', // 11
    '4242424242424242428', // 19
    '42424242424242424242', // 20
    '9804000000000009', // Prostir: a scheme card-validator does not know
    '6200000000000006', // UnionPay failing Luhn
    '4222222222222', // a 13-digit Visa
    '４２４２４２４２４２４２４２４２', // full-width digits
    '4242.4242.4242.4242',
    '4242424242424242x',
  ],
  cvv: ['', '12', '123', '1234', '12345', ' 123 ', '12 3', '١٢٣', '12a', '0000'],
  holder: ['', '   ', 'A', 'ADA LOVELACE', ' Ada ', 'a'.repeat(128), 'a'.repeat(129)],
  firstName: [
    '',
    ' ',
    '\u00a0',
    'Ада',
    ' Ada',
    'a'.repeat(256),
    'a'.repeat(257),
    '😀'.repeat(128),
    '😀'.repeat(129),
  ],
  lastName: ['', 'Лавлейс', "O'Brien", 'a'.repeat(256), ` ${'a'.repeat(256)} `, 'a'.repeat(257)],
  email: [
    'оля@приклад.укр',
    'ada@example.c',
    'ada@example.com',
    ' ada@example.com\t',
    'ADA@EXAMPLE.COM',
    'ada@приклад.com',
    'оля@example.com',
    'ada@example',
    'a..b@example.com',
    '.ada@example.com',
    'ada.@example.com',
    'ada@-example.com',
    'ada@example..com',
    "o'brien+tag@example.co.uk",
    'ada lovelace@example.com',
    'ada@@example.com',
    '',
    ' ',
  ],
  phone: [
    '(050)1234567',
    '+380.50.123.4567',
    '+380 (50) 123-45-67',
    '050 123 45 67',
    '+380501234567',
    '+380\u00a050\u00a0123\u00a04567',
    '050–123–45–67',
    '050/123 45 67',
    '12345',
    '123456',
    '+12345',
    '+123456',
    '1'.repeat(31),
    '1'.repeat(32),
    `+${'1'.repeat(31)}`,
    '+',
    '()',
    '++380501234567',
    '380+501234567',
    '050 123 45 67 ext 2',
    '+38O501234567',
    '٠٥٠١٢٣٤٥٦٧',
    '',
    ' ',
  ],
};

// ---- tests -----------------------------------------------------------------------------

describe('the form, the protocol and the gateway give one verdict per value', () => {
  for (const [field, values] of GENERATED) {
    test(`${field.name}: generated values`, (t) => {
      pinClock(t);
      fc.assert(
        fc.property(values, (raw) => void assertAgree(field, raw)),
        {numRuns: 400},
      );
    });
  }

  for (const field of Object.values(FIELDS)) {
    test(`${field.name}: edge cases`, (t) => {
      pinClock(t);
      for (const raw of EDGES[field.name]) assertAgree(field, raw);
    });
  }
});

describe('the issue’s four examples', () => {
  test('(050)1234567 and +380.50.123.4567 pass everywhere, sent as digits with an optional +', (t) => {
    pinClock(t);
    const a = assertAgree(FIELDS.phone, '(050)1234567');
    const b = assertAgree(FIELDS.phone, '+380.50.123.4567');
    assert.deepEqual([a.form, a.sent], [true, '0501234567']);
    assert.deepEqual([b.form, b.sent], [true, '+380501234567']);
  });

  test('оля@приклад.укр and ada@example.c are refused everywhere, by the form in en and uk', (t) => {
    pinClock(t);
    const cyrillic = assertAgree(FIELDS.email, 'оля@приклад.укр');
    const shortTld = assertAgree(FIELDS.email, 'ada@example.c');
    assert.equal(cyrillic.form, false);
    assert.equal(shortTld.form, false);
    assert.equal(checkField('email', 'оля@приклад.укр', en, null).message, en.emailLatin);
    assert.equal(checkField('email', 'оля@приклад.укр', uk, null).message, uk.emailLatin);
    assert.equal(checkField('email', 'ada@example.c', en, null).message, en.emailInvalid);
    assert.equal(checkField('email', 'ada@example.c', uk, null).message, uk.emailInvalid);
  });
});

// ---- expiry ------------------------------------------------------------------------------

/** The three verdicts on an expiry month and year, at the pinned clock. */
function expiryVerdicts(month: number, year: number) {
  const body = payBody();
  body.card!.expMonth = month;
  body.card!.expYear = year;
  const protocol = PayRequestSchema.safeParse(body).success;
  const gateway = DirectPaymentRequest.safeParse({
    ...directRequest(),
    exp_month: month,
    exp_year: year,
  }).success;
  // The form can only be typed `MM / YY`: whole months of two digits, years 2000–2099.
  const typeable =
    Number.isInteger(month) &&
    month >= 0 &&
    month <= 99 &&
    Number.isInteger(year) &&
    year >= 2000 &&
    year <= 2099;
  const text = `${String(month).padStart(2, '0')} / ${String(year % 100).padStart(2, '0')}`;
  const form = typeable ? checkField('expiry', text, en, null).valid : undefined;
  return {protocol, gateway, form, text};
}

/**
 * Asserts that the protocol and the gateway agree on a month and year, and that the form
 * agrees with them but where card-validator refuses the text it shows (a month over on the
 * local clock, a year more than 19 ahead).
 */
function assertExpiryAgrees(month: number, year: number) {
  const v = expiryVerdicts(month, year);
  const where = `${month}/${year}: ${JSON.stringify(v)}`;
  assert.equal(v.protocol, v.gateway, `protocol and gateway disagree on ${where}`);
  if (v.form !== undefined && !(v.gateway && !expirationDate(v.text).isValid))
    assert.equal(v.form, v.gateway, `form and gateway disagree on ${where}`);
  if (v.form) assert.equal(v.gateway, true, `the form takes what the gateway refuses: ${where}`);
  return {...v, cardValidator: expirationDate(v.text).isValid};
}

describe('the expiry: one window', () => {
  test('generated months, years and clocks', (t) => {
    pinClock(t);
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(Date.UTC(2001, 0, 1)),
          max: new Date(Date.UTC(2098, 11, 31)),
          noInvalidDate: true,
        }),
        fc.oneof(fc.integer({min: -1, max: 14}), fc.double({min: 0, max: 13, noNaN: true})),
        fc.oneof(
          fc.integer({min: 1995, max: 2105}),
          fc.integer({min: 0, max: 99}),
          fc.integer({min: 1000, max: 9999}),
          fc.double({min: 2000, max: 2100, noNaN: true}),
        ),
        (at, month, year) => {
          t.mock.timers.setTime(at.getTime());
          assertExpiryAgrees(month, year);
        },
      ),
      {numRuns: 1000},
    );
  });

  test('years: 2000 to 2099 and not over, nothing else, in all three', (t) => {
    pinClock(t, Date.UTC(2001, 0, 15));
    for (const [year, ok] of [
      [1999, false],
      [2000, false], // over by now
      [2001, true],
      [2099, true],
      [2100, false],
      [9999, false],
      [99, false],
    ] as const) {
      const v = assertExpiryAgrees(12, year);
      assert.equal(v.gateway, ok, `12/${year}`);
    }
    t.mock.timers.setTime(NOW);
    // The gateway takes any year to 2099; the form, with card-validator, 19 years ahead.
    const far = assertExpiryAgrees(12, 2099);
    assert.deepEqual([far.gateway, far.form], [true, false], '12 / 99');
    const window = assertExpiryAgrees(12, 2049);
    assert.deepEqual([window.gateway, window.form], [true, true], '12 / 49: 19 years ahead');
    const beyond = assertExpiryAgrees(1, 2050);
    assert.deepEqual([beyond.gateway, beyond.form], [true, false], '01 / 50: 20 years ahead');
  });

  test('a card is good through its month while it lasts in UTC−12, in the form on the customer’s clock', (t) => {
    // 1 July 2030, 11:59 UTC: still 30 June in UTC−12, July on the (UTC) local clock.
    pinClock(t, Date.UTC(2030, 6, 1, 11, 59));
    const lastHours = assertExpiryAgrees(6, 2030);
    assert.deepEqual([lastHours.gateway, lastHours.form], [true, false]);
    t.mock.timers.setTime(Date.UTC(2030, 6, 1, 12, 0));
    assert.equal(assertExpiryAgrees(6, 2030).gateway, false);
    assert.equal(assertExpiryAgrees(7, 2030).gateway, true);
    // 30 June 2030, 23:59 UTC: June everywhere from UTC−12 to the local clock.
    t.mock.timers.setTime(Date.UTC(2030, 5, 30, 23, 59));
    const june = assertExpiryAgrees(6, 2030);
    assert.deepEqual([june.gateway, june.form], [true, true]);
  });

  test('months: 1 to 12 only', (t) => {
    pinClock(t);
    for (const month of [0, 13, 1.5, -1])
      assert.equal(assertExpiryAgrees(month, 2031).gateway, false);
    for (const month of [1, 12]) assert.equal(assertExpiryAgrees(month, 2031).gateway, true);
  });
});
