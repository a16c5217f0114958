/**
 * The store core: each transactional algorithm of the payment store written once, for
 * SQLite and PostgreSQL alike, over a small port per dialect ({@link StorePort}).
 *
 * An algorithm is a generator that yields each port call it makes and is resumed with its
 * result. The SQLite port answers synchronously: `runSync` drives the generator to its end
 * inside one better-sqlite3 transaction (or one savepoint of a group commit), with the
 * port's prepared statements, and nothing else can run in the middle. The PostgreSQL port
 * answers with promises: `runAsync` awaits each one on the transaction's connection,
 * whose row and advisory locks the port takes. A plain `async` core could not serve
 * SQLite: an `await` inside a better-sqlite3 transaction leaves it open to every other
 * caller — the very step that let the memory store keep two refunds against one `decide`.
 * The generator costs one small object per step, no query builder and no re-prepared
 * statement.
 *
 * `mutate` and `decide` callbacks run between steps, synchronously, as the store contract
 * requires (`store.ts`).
 */
import {isLiveAttempt} from './payment-store.js';
import type {
  AttemptMutation,
  AttemptRecord,
  AttemptReservation,
  CreateIntentResult,
  InsertAttemptResult,
  IntentMutation,
  NewPaymentUpdate,
  OperationIntent,
  OutboxDelivery,
  OutboxEntry,
  PaymentStore,
  RecordOperationResult,
  StoredOperationInput,
  UpdateAttemptResult,
  WebhookEventInput,
} from './payment-store.js';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_KEYS,
  INTENT_KEYS,
  SAVED_CARD_COLUMNS,
  rowToAttempt,
  rowToIntent,
  rowToOperation,
  rowToOutbox,
  rowToSavedCard,
  type AttemptKey,
} from './rows.js';
import {INTENT_MUTABLE, type Statements} from './statements.js';
import {countVelocity, lockVelocity, pruneVelocity, velocityRefusal} from './velocity-counts.js';

export {reserveAttempt} from './velocity-counts.js';
import type {SavedCardRecord} from './saved-card-records.js';

export type Row = Record<string, unknown>;
/** A port call's answer: a value (SQLite), or a promise of one (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;
/** An algorithm: yields port calls, returns its result. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** An outbox claim: for `owner` until `until`, at `now`, up to `limit` entries. */
export interface OutboxClaim {
  owner: string;
  now: number;
  until: number;
  limit: number;
}

/**
 * What a dialect gives the core: a driver — statements run on the current transaction
 * (or alone), and a lock — with the dialect's statements (`statements.ts`).
 */
export interface StorePort {
  readonly sql: Statements;
  get(sql: string, args: readonly unknown[]): Awaitable<Row | undefined>;
  all(sql: string, args: readonly unknown[]): Awaitable<Row[]>;
  /** Runs a write; answers how many rows it changed. */
  run(sql: string, args: readonly unknown[]): Awaitable<number>;
  /** Runs an insert; answers the new row's id. */
  insert(sql: string, args: readonly unknown[]): Awaitable<number>;
  /** Runs statements without parameters (a migration). */
  exec(sql: string): Awaitable<void>;
  /**
   * Serialises the transactions about `key` until this one ends (PostgreSQL: an advisory
   * transaction lock, sent with the transaction's `BEGIN` when it is asked for before the
   * first statement; SQLite: nothing, its write transaction holds the file).
   */
  lock(key: string): Awaitable<void>;
  /** When the card-testing counts were last pruned (kept by the store). */
  prunedAt: number;
  /**
   * Says the next statement is the transaction's last (PostgreSQL: its `COMMIT` may go
   * with it, in the same round trip; SQLite: nothing). No statement may follow it.
   */
  lastNext?(): void;
}

/** One port call, its answer typed: `const row = yield* step(p.get(...))`. */
export function* step<T>(call: Awaitable<T>): Generator<Awaitable<T>, T, unknown> {
  return (yield call) as T;
}

/** Drives an algorithm over a synchronous port (SQLite), in the caller's transaction. */
export function runSync<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) r = steps.next(r.value);
  return r.value;
}

/** Drives an algorithm over an asynchronous port (PostgreSQL): each step awaited in turn. */
export async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    let value: unknown;
    try {
      value = await r.value;
    } catch (error) {
      r = steps.throw(error);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

type AttemptKeyArg = {attemptId: string} | {gatewayOrderId: string};

const noEmpty = (v: unknown) => v ?? null;

/**
 * A new attempt, unless the attempt id exists or the order has a live attempt (the rule
 * is `isLiveAttempt`'s, nowhere else); with a reservation, its counts in the same step.
 * The order's lock (and the keys') come first, before any statement: on PostgreSQL they
 * go with the transaction's `BEGIN`, and every insert of the order waits for the one
 * before it to commit, so its read sees that one's attempt. (The unique index of one open
 * attempt per order stays in the schema, and no row lock is taken: the lock already
 * orders the inserts, and an update racing the read can only make it refuse.)
 */
export function* insertAttempt(
  p: StorePort,
  attempt: AttemptRecord,
  reservation: AttemptReservation | undefined,
): Steps<InsertAttemptResult> {
  yield* step(p.lock(`order:${attempt.orderRef}`));
  if (reservation) yield* lockVelocity(p, reservation.keys);
  const rows = yield* step(p.all(p.sql.attemptOrOrder, [attempt.attemptId, attempt.orderRef]));
  const found = rows.map(rowToAttempt);
  const same = found.find((a) => a.attemptId === attempt.attemptId);
  if (same) return {inserted: false, existing: same, reason: 'same_attempt'};
  const live = found.find((a) => a.orderRef === attempt.orderRef && isLiveAttempt(a));
  if (live) return {inserted: false, existing: live, reason: 'order_has_live_attempt'};
  if (reservation) {
    const refused = yield* velocityRefusal(p, reservation);
    if (refused) return {inserted: false, reason: 'limited', ...refused};
  }
  const row: Row = {};
  for (const k of ATTEMPT_KEYS) row[ATTEMPT_COLUMNS[k]] = attempt[k];
  const args = ATTEMPT_KEYS.map((k) => noEmpty(attempt[k]));
  if (reservation && p.sql.batched) {
    // The attempt and its counts in one statement.
    const r = reservation;
    const counts = [r.now, r.keys.map((k) => k.scope), r.keys.map((k) => k.key)];
    const sql = p.sql.chain([p.sql.insertAttempt], p.sql.velocityCountAll);
    yield* pruneVelocity(p, r);
    p.lastNext?.();
    yield* step(p.run(sql, [...args, ...counts]));
  } else {
    if (!reservation) p.lastNext?.();
    yield* step(p.run(p.sql.insertAttempt, args));
    // Should the counts fail, the transaction (or savepoint) takes the attempt back with them.
    if (reservation) yield* countVelocity(p, reservation);
  }
  // The row as it reads back: the same values, without the empty ones.
  return {inserted: true, attempt: rowToAttempt(row)};
}

/** Stores a webhook event; false when its key was stored before. */
export function* recordEvent(p: StorePort, event: WebhookEventInput): Steps<boolean> {
  return (yield* step(p.run(p.sql.insertEvent, eventArgs(event)))) === 1;
}

function eventArgs(event: WebhookEventInput): unknown[] {
  return [
    event.eventKey,
    event.receivedAt,
    event.kind,
    noEmpty(event.gatewayOrderId),
    noEmpty(event.status),
    event.data,
    noEmpty(event.flag),
  ];
}

function* insertOutbox(p: StorePort, update: NewPaymentUpdate, at: number): Steps<number> {
  return yield* step(p.insert(p.sql.insertOutbox, [at, JSON.stringify(update)]));
}

/** The event (a duplicate stops here), the locked attempt, `mutate`, its patch and update. */
export function* updateAttempt(
  p: StorePort,
  key: AttemptKeyArg,
  mutate: (current: AttemptRecord) => AttemptMutation | undefined,
  event: WebhookEventInput | undefined,
): Steps<UpdateAttemptResult> {
  const [by, keyArg] =
    'attemptId' in key
      ? [p.sql.attemptByIdLocked, key.attemptId]
      : [p.sql.attemptByGatewayIdLocked, key.gatewayOrderId];
  let row: Row | undefined;
  if (event && p.sql.batched) {
    // The event and the locked attempt in one statement (a duplicate locks it for nothing).
    const r = yield* step(p.get(p.sql.eventThen(by), [...eventArgs(event), keyArg]));
    if (Number(r!['recorded_event']) !== 1) {
      return {duplicateEvent: true, attempt: undefined, changed: false};
    }
    row = r!['attempt_id'] === null ? undefined : r;
  } else {
    if (event && !(yield* recordEvent(p, event))) {
      return {duplicateEvent: true, attempt: undefined, changed: false};
    }
    row = yield* step(p.get(by, [keyArg]));
  }
  if (!row) return {duplicateEvent: false, attempt: undefined, changed: false};
  const current = rowToAttempt(row);
  const mutation = mutate({...current});
  if (!mutation) return {duplicateEvent: false, attempt: current, changed: false};
  // The row after the update, as it would read back (an empty value clears a column).
  const next = {...current} as Record<string, unknown>;
  const assignments = (Object.entries(mutation.patch) as [AttemptKey, unknown][]).filter(
    ([k]) => k in ATTEMPT_COLUMNS,
  );
  for (const [k, v] of assignments) {
    if (v === null || v === undefined) delete next[k];
    else next[k] = v;
  }
  const sql = assignments.length > 0 && p.sql.updateAttempt(assignments.map(([k]) => k));
  const args = [...assignments.map(([, v]) => noEmpty(v)), current.attemptId];
  let outboxId: number | undefined;
  let savedCardId: string | undefined;
  const count = mutation.count;
  const countArgs = count ? [count.name, count.pruneBefore, count.name, count.bucket, count.n] : [];
  if (sql && mutation.update && !mutation.saveCard && p.sql.batched) {
    // The change, its guard count and its update in one statement.
    const outbox = [next['updatedAt'], JSON.stringify(mutation.update)];
    const writes = count ? [sql, p.sql.guard.prune, p.sql.guard.add] : [sql];
    const text = p.sql.chain(writes, p.sql.insertOutbox);
    p.lastNext?.();
    outboxId = yield* step(p.insert(text, [...args, ...countArgs, ...outbox]));
  } else {
    if (sql) {
      if (!count && !mutation.saveCard && !mutation.update) p.lastNext?.();
      yield* step(p.run(sql, args));
    }
    if (count) {
      yield* step(p.run(p.sql.guard.prune, countArgs.slice(0, 2)));
      yield* step(p.get(p.sql.guard.add, countArgs.slice(2)));
    }
    savedCardId = mutation.saveCard && (yield* saveCard(p, mutation.saveCard)).id;
    const update =
      mutation.update && (savedCardId ? {...mutation.update, savedCardId} : mutation.update);
    if (update) outboxId = yield* insertOutbox(p, update, next['updatedAt'] as number);
  }
  return {
    duplicateEvent: false,
    attempt: next as unknown as AttemptRecord,
    changed: next['state'] !== current.state,
    ...(outboxId === undefined ? {} : {outboxId}),
    ...(savedCardId === undefined ? {} : {savedCardId}),
  };
}

/** The event (duplicate: nothing), the operation (repeat: nothing) and its update. */
export function* recordOperation(
  p: StorePort,
  operation: StoredOperationInput,
  update: NewPaymentUpdate,
  event: WebhookEventInput | undefined,
): Steps<RecordOperationResult> {
  if (event && !(yield* recordEvent(p, event))) return {duplicateEvent: true, inserted: false};
  const o = operation;
  const args = [
    o.gatewayOrderId,
    o.orderRef,
    o.kind,
    o.operationId,
    o.status,
    noEmpty(o.statusCode),
    noEmpty(o.amount),
    noEmpty(o.currency),
    o.raw,
    o.createdAt,
  ];
  if ((yield* step(p.run(p.sql.insertOperation, args))) !== 1) {
    return {duplicateEvent: false, inserted: false};
  }
  return {
    duplicateEvent: false,
    inserted: true,
    outboxId: yield* insertOutbox(p, update, o.createdAt),
  };
}

/**
 * Under the order's intent lock: the key's intent as it is, or `decide` over every intent
 * and operation of the order, then the new intent and its update.
 */
export function* createIntent(
  p: StorePort,
  intent: OperationIntent,
  decide: Parameters<PaymentStore['createIntent']>[1],
  update: NewPaymentUpdate | undefined,
): Steps<CreateIntentResult> {
  yield* step(p.lock(`intents:${intent.orderRef}`));
  const existing = yield* step(p.get(p.sql.intentByKey, [intent.orderRef, intent.key]));
  if (existing) return {created: false, existing: rowToIntent(existing)};
  const intents = (yield* step(p.all(p.sql.intentsOfOrder, [intent.orderRef]))).map(rowToIntent);
  const operations = (yield* step(p.all(p.sql.operationsOfOrder, [intent.orderRef]))).map(
    rowToOperation,
  );
  const refused = decide(intents, operations);
  if (refused) return {created: false, refused};
  yield* step(
    p.run(
      p.sql.insertIntent,
      INTENT_KEYS.map((k) => noEmpty(intent[k])),
    ),
  );
  if (update) yield* insertOutbox(p, update, intent.createdAt);
  return {created: true, intent: {...intent}};
}

/** The locked intent, `mutate`, its patch and update. */
export function* updateIntent(
  p: StorePort,
  orderRef: string,
  key: string,
  mutate: (current: OperationIntent) => IntentMutation | undefined,
): Steps<OperationIntent | undefined> {
  const row = yield* step(p.get(p.sql.intentByKeyLocked, [orderRef, key]));
  if (!row) return undefined;
  const current = rowToIntent(row);
  const m = mutate({...current});
  if (!m) return current;
  const next = {...current, ...m.patch};
  const args = [...INTENT_MUTABLE.map((k) => noEmpty(next[k])), orderRef, key];
  yield* step(p.run(p.sql.updateIntent, args));
  if (m.update) yield* insertOutbox(p, m.update, next.updatedAt);
  return next;
}

/**
 * Marks what was delivered, then claims (the claim never returns what it marked).
 * PostgreSQL: each one statement, the claim `FOR UPDATE SKIP LOCKED`; SQLite: in its
 * write transaction, the claimable rows read, then one update each.
 */
export function* claimOutbox(
  p: StorePort,
  delivered: readonly OutboxDelivery[],
  claim: OutboxClaim,
): Steps<OutboxEntry[]> {
  if (!Number.isSafeInteger(claim.limit) || claim.limit < 0) {
    throw new RangeError(`claimOutbox: limit must be a whole number, not ${claim.limit}`);
  }
  const {owner, now, until} = claim;
  let rows: Row[];
  if (p.sql.batched) {
    const claimArgs = [owner, until, now, owner, claim.limit];
    if (delivered.length > 0) {
      // The marks and the claim in one statement; the claim passes over what it marks.
      const ids = delivered.map((d) => d.id);
      const args = [ids, delivered.map((d) => d.at), ...claimArgs.slice(0, 4), ids];
      rows = yield* step(p.all(p.sql.markThenClaimOutbox, [...args, claim.limit]));
    } else {
      rows = yield* step(p.all(p.sql.claimOutbox, claimArgs));
    }
  } else {
    for (const d of delivered) yield* step(p.run(p.sql.outboxDelivered, [d.at, d.id]));
    rows = yield* step(p.all(p.sql.claimableOutbox(claim.limit), [now, owner]));
    for (const r of rows) yield* step(p.run(p.sql.claimOutboxEntry, [owner, until, r['id']]));
  }
  return rows.map(rowToOutbox).sort((a, b) => a.id - b.id);
}

/** The card, unless its customer has a live card with this token; the live card either way. */
export function* saveCard(p: StorePort, card: SavedCardRecord): Steps<SavedCardRecord> {
  const keys = Object.keys(SAVED_CARD_COLUMNS) as (keyof SavedCardRecord)[];
  yield* step(
    p.run(
      p.sql.insertSavedCard,
      keys.map((k) => noEmpty(card[k])),
    ),
  );
  const row = yield* step(p.get(p.sql.liveSavedCard, [card.customerId, card.token]));
  return rowToSavedCard(row!);
}
