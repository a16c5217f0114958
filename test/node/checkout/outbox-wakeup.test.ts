/**
 * The outbox never loses a kick (issue 36): a `kick()` that lands while a delivery run is
 * ending — after its last look at whether it was kicked again, before it is marked done —
 * must still start a run, even when the ending run delivered nothing (so no mark timer and
 * no retry timer would ever start one). Driven on a store whose claims the test answers
 * itself, with the kick placed at every turn of the run's ending, one after another.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {Outbox} from '../../../src/server/payments/outbox.js';
import type {PaymentStore} from '../../../src/server/store/payment-store.js';
import type {CheckoutLogger} from '../../../src/server/telemetry/logger.js';

type Claimed = Awaited<ReturnType<PaymentStore['claimOutbox']>>;

/** Resolves after every callback queued for the next turns of the event loop has run. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

const quiet: CheckoutLogger = {info() {}, warn() {}, error() {}};

test('a kick while a run is ending starts another run', async () => {
  const lost: number[] = [];
  for (let k = 0; k < 40; k++) {
    const claims: Array<(entries: Claimed) => void> = [];
    const store = {
      claimOutbox: () => new Promise<Claimed>((resolve) => claims.push(resolve)),
    } as unknown as PaymentStore;
    const outbox = new Outbox({
      store,
      onPaymentUpdate: undefined,
      logger: quiet,
      now: () => 0,
      instance: {id: 'i', leaseMs: 60_000},
      closed: () => false,
    });
    outbox.kick();
    await turns(1);
    assert.equal(claims.length, 1, 'the first kick claimed');
    // The run finds nothing; k turns of the microtask queue later, an entry written since is
    // kicked.
    claims[0]!([]);
    for (let i = 0; i < k; i++) await Promise.resolve();
    outbox.kick();
    await turns(3);
    if ((claims as unknown[]).length !== 2) lost.push(k);
    claims[1]?.([]);
    await outbox.close();
  }
  assert.deepEqual(lost, [], 'kicks landing this many microtasks after the claim were lost');
});
