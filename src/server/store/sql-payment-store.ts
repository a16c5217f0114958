/**
 * The {@link PaymentStore} on SQL, once for both dialects: every method is an algorithm of
 * the store core (`algorithms.ts`) or a reader, run by the dialect's store class
 * (`SqlitePaymentStore`, `PostgresPaymentStore`) in the way the method asks for
 * ({@link RunMode}): the class holds the connection, the transactions and, for SQLite,
 * the group commit; the rules are here and in the core.
 */
import * as core from './algorithms.js';
import {step, type Row, type Steps, type StorePort} from './algorithms.js';
import {
  rowToAttempt,
  rowToEvent,
  rowToIntent,
  rowToOperation,
  rowToOutbox,
  rowToRejected,
  rowToSavedCard,
} from './rows.js';
import type {SavedCardRecord} from './saved-card-records.js';
import type {
  AttemptMutation,
  AttemptRecord,
  AttemptReservation,
  AttemptState,
  CreateIntentResult,
  InsertAttemptResult,
  IntentMutation,
  IntentState,
  NewPaymentUpdate,
  OperationIntent,
  OutboxDelivery,
  OutboxEntry,
  PaymentStore,
  RecordOperationResult,
  RejectedWebhookInput,
  RejectedWebhookRecord,
  ReserveAttemptResult,
  StoredOperation,
  StoredOperationInput,
  UpdateAttemptResult,
  VelocityKey,
  WebhookEventInput,
  WebhookEventRecord,
} from './payment-store.js';

/**
 * How a method's steps run:
 * - `read`: a read, or one write that stands alone: no transaction;
 * - `steps`: writes that each stand alone, committed together where that is cheaper
 *   (SQLite: one commit; PostgreSQL: each on its own);
 * - `tx`: one transaction;
 * - `insert`: one transaction, on disk before it is acknowledged (SQLite: unless
 *   `syncAttemptInserts` is off) — a new attempt;
 * - `durable`: one transaction, on disk before it is acknowledged — what acknowledges a
 *   webhook, or must survive a power cut before the gateway is called;
 * - `group`: one transaction that may share its commit with others (SQLite's group commit).
 */
export type RunMode = 'read' | 'steps' | 'tx' | 'insert' | 'durable' | 'group';

export abstract class SqlPaymentStore implements PaymentStore {
  /** Runs an algorithm on the dialect's port, as `mode` says. */
  protected abstract run<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T>;

  private readOne<T>(sql: (p: StorePort) => string, args: unknown[], map: (row: Row) => T) {
    return this.run('read', function* (p) {
      const row = yield* step(p.get(sql(p), args));
      return row && map(row);
    });
  }

  private readAll<T>(sql: (p: StorePort) => string, args: unknown[], map: (row: Row) => T) {
    return this.run('read', function* (p) {
      return (yield* step(p.all(sql(p), args))).map(map);
    });
  }

  private writeOne(mode: RunMode, sql: (p: StorePort) => string, args: unknown[]): Promise<number> {
    return this.run(mode, (p) => step(p.run(sql(p), args)));
  }

  insertAttempt(
    attempt: AttemptRecord,
    reservation?: AttemptReservation,
  ): Promise<InsertAttemptResult> {
    return this.run('insert', (p) => core.insertAttempt(p, attempt, reservation));
  }

  getAttempt(attemptId: string): Promise<AttemptRecord | undefined> {
    return this.readOne((p) => p.sql.attemptById, [attemptId], rowToAttempt);
  }

  getAttemptByGatewayOrderId(gatewayOrderId: string): Promise<AttemptRecord | undefined> {
    return this.readOne((p) => p.sql.attemptByGatewayId, [gatewayOrderId], rowToAttempt);
  }

  listAttempts(orderRef: string): Promise<AttemptRecord[]> {
    return this.readAll((p) => p.sql.attemptsOfOrder, [orderRef], rowToAttempt);
  }

  async listAttemptsInStates(states: readonly AttemptState[]): Promise<AttemptRecord[]> {
    if (states.length === 0) return [];
    return this.readAll((p) => p.sql.attemptsInStates(states.length), [...states], rowToAttempt);
  }

  /** A webhook's write is on disk before it is acknowledged: the gateway will not resend it. */
  updateAttempt(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    return this.run(event ? 'durable' : 'tx', (p) => core.updateAttempt(p, key, mutate, event));
  }

  recordEvent(event: WebhookEventInput): Promise<boolean> {
    return this.run('durable', (p) => core.recordEvent(p, event));
  }

  listEvents(): Promise<WebhookEventRecord[]> {
    return this.readAll((p) => p.sql.events, [], rowToEvent);
  }

  recordOperation(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event?: WebhookEventInput,
  ): Promise<RecordOperationResult> {
    return this.run(event ? 'durable' : 'tx', (p) =>
      core.recordOperation(p, operation, update, event),
    );
  }

  listOperations(orderRef: string): Promise<StoredOperation[]> {
    return this.readAll((p) => p.sql.operationsOfOrder, [orderRef], rowToOperation);
  }

  async recordRejectedWebhook(r: RejectedWebhookInput): Promise<void> {
    const args = [r.receivedAt, r.ip, r.reason, r.bodySha256, r.size];
    await this.writeOne('read', (p) => p.sql.insertRejected, args);
  }

  listRejectedWebhooks(): Promise<RejectedWebhookRecord[]> {
    return this.readAll((p) => p.sql.rejected, [], rowToRejected);
  }

  pendingOutbox(limit = 100): Promise<OutboxEntry[]> {
    return this.readAll((p) => p.sql.pendingOutbox, [limit], rowToOutbox);
  }

  claimOutbox(owner: string, now: number, leaseMs: number, limit = 100): Promise<OutboxEntry[]> {
    const claim = {owner, now, until: now + leaseMs, limit};
    return this.run('steps', (p) => core.claimOutbox(p, [], claim));
  }

  claimOutboxAfterDelivery(
    delivered: readonly OutboxDelivery[],
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    const claim = {owner, now, until: now + leaseMs, limit};
    return this.run('steps', (p) => core.claimOutbox(p, delivered, claim));
  }

  async markOutboxDelivered(id: number, at: number): Promise<void> {
    await this.writeOne('read', (p) => p.sql.outboxDelivered, [at, id]);
  }

  async markOutboxFailed(id: number): Promise<void> {
    await this.writeOne('read', (p) => p.sql.outboxFailed, [id]);
  }

  async acquireLease(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const args = [key, owner, now + leaseMs, now];
    return (await this.writeOne('read', (p) => p.sql.acquireLease, args)) === 1;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    await this.writeOne('read', (p) => p.sql.releaseLease, [key, owner]);
  }

  /** Durable before the gateway is called, like a new attempt. */
  createIntent(
    intent: OperationIntent,
    decide: Parameters<PaymentStore['createIntent']>[1],
    update?: NewPaymentUpdate,
  ): Promise<CreateIntentResult> {
    return this.run('durable', (p) => core.createIntent(p, intent, decide, update));
  }

  updateIntent(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): Promise<OperationIntent | undefined> {
    return this.run('tx', (p) => core.updateIntent(p, orderRef, key, mutate));
  }

  getIntent(orderRef: string, key: string): Promise<OperationIntent | undefined> {
    return this.readOne((p) => p.sql.intentByKey, [orderRef, key], rowToIntent);
  }

  listIntents(orderRef: string): Promise<OperationIntent[]> {
    return this.readAll((p) => p.sql.intentsOfOrder, [orderRef], rowToIntent);
  }

  async listIntentsInStates(states: readonly IntentState[]): Promise<OperationIntent[]> {
    if (states.length === 0) return [];
    return this.readAll((p) => p.sql.intentsInStates(states.length), [...states], rowToIntent);
  }

  /**
   * Not on disk before it answers (SQLite): a power cut may forget the last counts, never
   * let two requests through at once.
   */
  reserveAttempt(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): Promise<ReserveAttemptResult> {
    return this.run('group', (p) => core.reserveAttempt(p, {keys, now, windowMs}));
  }

  saveCard(card: SavedCardRecord): Promise<SavedCardRecord> {
    return this.run('durable', (p) => core.saveCard(p, card));
  }

  getSavedCard(id: string): Promise<SavedCardRecord | undefined> {
    return this.readOne((p) => p.sql.savedCardById, [id], rowToSavedCard);
  }

  listSavedCards(customerId?: string): Promise<SavedCardRecord[]> {
    return customerId === undefined
      ? this.readAll((p) => p.sql.allSavedCards, [], rowToSavedCard)
      : this.readAll((p) => p.sql.savedCardsOf, [customerId], rowToSavedCard);
  }

  async deleteSavedCard(customerId: string, id: string, at: number): Promise<boolean> {
    const args = [at, customerId, id];
    return (await this.writeOne('durable', (p) => p.sql.deleteSavedCard, args)) === 1;
  }

  abstract ping(): Promise<boolean>;
  abstract close(): Promise<void>;
}
