/**
 * The default logger's redaction: `createCheckoutLogger` censors `REDACT_PATHS` itself (pino's
 * `redact` option cost about 25 µs per line, on every line). Every line it writes must be
 * the line pino's `redact` with the same paths would write — shown on fields that hold each
 * path, at the top, one level down and in headers, and on fields that only look like them.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {Writable} from 'node:stream';
import {pino} from 'pino';
import {REDACT_PATHS, createCheckoutLogger} from '../../../src/server/telemetry/logger.js';

/** A logger's lines, as parsed JSON without the time. */
function capture(make: (stream: Writable) => pino.Logger) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>;
      delete line['time'];
      lines.push(line);
      done();
    },
  });
  return {logger: make(stream), lines};
}

const CARD = '4111111111111111';
const secrets = () => ({
  card: {number: CARD, cvv: '123'},
  cc_number: CARD,
  card_cvv: '123',
  cvv: '123',
  number: CARD,
  cc_token: 'TOKEN',
  cardToken: 'TOKEN',
  apiSecret: 'S',
  credentials: {apiKey: 'k', apiSecret: 's'},
  authorization: 'Basic x',
});
const headers = () => ({
  authorization: 'Basic x',
  cookie: 'c=1',
  'x-api-auth': 'a',
  'x-api-key': 'k',
  accept: 'application/json',
});

/** Fields each line is logged with: every path, near misses and plain values. */
const CASES: Record<string, unknown>[] = [
  {orderRef: 'o-1', attemptId: 'a-1', ms: 1.5, ok: true, none: null},
  secrets(),
  {request: secrets(), response: {status: 200, body: secrets()}},
  {headers: {...headers(), card: CARD, headers: headers()}},
  {req: {headers: headers(), authorization: 'Basic y'}, res: {headers: {cookie: 'c'}}},
  {list: [1, {card: CARD}], nested: {deep: {card: CARD, number: CARD}}},
  {card: undefined, other: {card: undefined}, error: {message: 'm', cvv: undefined}},
  {cardNumber: CARD.slice(0, 6), headers: 'a string', authorizationCode: 'x'},
  {error: Object.assign(new Error('failed'), {card: CARD, code: 'E'})},
];

/**
 * One line per path of `REDACT_PATHS`, holding that path and nothing else (`*` as `outer`):
 * a path added to the list is tested here without a case of its own.
 */
const PER_PATH: Record<string, unknown>[] = REDACT_PATHS.map((path) => {
  const keys = path
    .split(/\.|(?=\[)/)
    .map((k) => (k === '*' ? 'outer' : k.replace(/^\["|"\]$/g, '')));
  const line: Record<string, unknown> = {};
  let at = line;
  for (const key of keys.slice(0, -1)) at = (at[key] = {}) as Record<string, unknown>;
  at[keys.at(-1)!] = CARD;
  return line;
});

describe('createCheckoutLogger redaction', () => {
  test('writes the lines pino writes with REDACT_PATHS as its redact option', () => {
    const ours = capture((s) => createCheckoutLogger({}, s));
    const reference = capture((s) =>
      pino({name: 'pg-checkout', redact: {paths: [...REDACT_PATHS], censor: '[redacted]'}}, s),
    );
    for (const fields of [...CASES, ...PER_PATH]) {
      ours.logger.info(fields, 'line');
      reference.logger.info(fields, 'line');
    }
    assert.equal(ours.lines.length, CASES.length + PER_PATH.length);
    // Each path's own line keeps nothing of the card (the near misses above may).
    assert.equal(JSON.stringify(ours.lines.slice(CASES.length)).includes(CARD), false);
    assert.deepEqual(ours.lines, reference.lines);
  });

  test("leaves the caller's objects as they were", () => {
    const {logger} = capture((s) => createCheckoutLogger({}, s));
    const fields = {request: secrets(), headers: headers()};
    const before = structuredClone(fields);
    logger.info(fields, 'line');
    assert.deepEqual(fields, before);
  });

  test("censors a child logger's bindings and lines, as pino's redact does", () => {
    const ours = capture((s) => createCheckoutLogger({}, s));
    const reference = capture((s) =>
      pino({name: 'pg-checkout', redact: {paths: [...REDACT_PATHS], censor: '[redacted]'}}, s),
    );
    for (const {logger} of [ours, reference]) {
      const child = logger.child({card: CARD, request: {cvv: '123'}, id: 1});
      child.info(secrets(), 'line');
      child
        .child({headers: headers()}, {formatters: {log: (o) => ({...o, n: 1})}})
        .info({card: CARD}, 'grandchild');
    }
    assert.deepEqual(ours.lines, reference.lines);
    assert.equal(ours.lines[0]?.['card'], '[redacted]');
    assert.doesNotMatch(JSON.stringify(ours.lines), new RegExp(CARD));
  });

  test('masks a card number in any spelling in the strings of a line, at the top and one level down', () => {
    const {logger, lines} = capture((s) => createCheckoutLogger({}, s));
    const spellings = [
      'https://evil.example/c/4242%204242%204242%204242',
      '4242.4242.4242.4242',
      '3782_822463_10005',
      '\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12',
      '6200 0000 0000 0000 005',
    ];
    for (const text of spellings) logger.warn({blocked: text, report: {page: text}}, 'line');
    // 12 digits that fail the Luhn check: not a card number, so an id stays readable.
    logger.info({orderRef: 'ord-1234-5678-9012', at: '2031-03-01T09:00:00.000Z'}, 'id');
    const text = JSON.stringify(lines);
    for (const digits of ['4242424242424242', '378282246310005', '6200000000000000005']) {
      const squeezed = text.normalize('NFKC').replace(/%20|[^0-9a-z]/gi, '');
      assert.equal(squeezed.includes(digits), false, `${digits} is not in the log`);
    }
    assert.equal(lines[0]?.['blocked'], 'https://evil.example/c/[digits]');
    assert.deepEqual(lines[0]?.['report'], {page: 'https://evil.example/c/[digits]'});
    assert.equal(lines.at(-1)?.['orderRef'], 'ord-1234-5678-9012');
  });
});
