/**
 * The companion logs through the minimal `CheckoutLogger` interface: `console` or any
 * object with `info`, `warn` and `error` works, not only pino; anything else is refused
 * at start-up with an error naming the option.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  CheckoutConfigError,
  SqlitePaymentStore,
  createCheckoutApp,
  type CheckoutLogger,
} from '../../../src/server/index.js';
import {CARDS, StubGateway, inProcessApp, pay, payBody} from './helpers.js';

/** A console-shaped logger that keeps each call as `[level, fields, message]`. */
function recordingLogger() {
  const calls: [string, Record<string, unknown>, string][] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void =>
      void calls.push([level, fields, message]);
  const logger: CheckoutLogger = {info: at('info'), warn: at('warn'), error: at('error')};
  return {logger, calls};
}

describe('logger option', () => {
  test('a plain object with info, warn and error receives fields and a message', async () => {
    const {logger, calls} = recordingLogger();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {logger});
    const res = await pay(app, payBody('order-1', 'attempt-1'));
    assert.equal(res.status, 200);
    assert.ok(calls.length > 0, 'the companion logged nothing');
    for (const [level, fields, message] of calls) {
      assert.ok(['info', 'warn', 'error'].includes(level));
      assert.equal(typeof fields, 'object');
      assert.equal(typeof message, 'string');
      assert.ok(message.length > 0);
      assert.doesNotMatch(JSON.stringify(fields), new RegExp(CARDS.success));
    }
  });

  test('console is a logger', () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      logger: console,
    });
    assert.equal(typeof app.request, 'function');
  });

  test('an object without the three methods is refused, naming the option', () => {
    const noWarn = {info() {}, error() {}};
    assert.throws(
      () =>
        createCheckoutApp({
          gateway: new StubGateway(),
          webhookSecret: 'secret',
          store: new SqlitePaymentStore(':memory:'),
          publicUrl: 'https://shop.example/checkout',
          returnPage: '/thanks',
          resolveOrder: () => null,
          logger: noWarn as unknown as CheckoutLogger,
        }),
      (e: unknown) =>
        e instanceof CheckoutConfigError &&
        e.issues.some((i) => i.field === 'logger' && /info, warn and error/.test(i.message)),
    );
  });
});
