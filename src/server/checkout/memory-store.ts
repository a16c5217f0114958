/**
 * `MemoryPaymentStore`: the {@link PaymentStore} contract kept in process memory, for unit
 * tests and demos. Every method runs synchronously to completion, so each is atomic; rows
 * are copied in and out so callers can never change stored state by accident. Nothing
 * survives the process: use `SqlitePaymentStore` for anything real.
 */
import {
  isLiveAttempt,
  type AttemptMutation,
  type CreateIntentResult,
  type IntentMutation,
  type IntentState,
  type OperationIntent,
  type ReserveAttemptResult,
  type VelocityKey,
  type AttemptRecord,
  type AttemptState,
  type AttemptReservation,
  type InsertAttemptResult,
  type NewPaymentUpdate,
  type StoredOperationInput,
  type StoredOperation,
  type OutboxDelivery,
  type OutboxEntry,
  type PaymentStore,
  type RecordOperationResult,
  type RejectedWebhookInput,
  type RejectedWebhookRecord,
  type UpdateAttemptResult,
  type WebhookEventInput,
  type WebhookEventRecord,
} from './store.js';
import type {SavedCardRecord} from './saved-cards.js';

const copy = <T>(value: T): T => structuredClone(value);

function applyPatch(row: AttemptRecord, patch: AttemptMutation['patch']): AttemptRecord {
  const next = {...row} as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  return next as unknown as AttemptRecord;
}

interface OutboxRow {
  id: number;
  update: NewPaymentUpdate;
  createdAt: number;
  deliveredAt?: number;
  failures: number;
  claimedBy?: string;
  claimedUntil?: number;
}

function outboxEntry(o: OutboxRow): OutboxEntry {
  return {
    id: o.id,
    update: {...copy(o.update), updateId: String(o.id)},
    createdAt: o.createdAt,
    failures: o.failures,
  };
}

export class MemoryPaymentStore implements PaymentStore {
  private readonly attempts = new Map<string, AttemptRecord>();
  private readonly byGatewayOrderId = new Map<string, string>();
  private readonly events = new Map<string, WebhookEventRecord>();
  private readonly operations: StoredOperation[] = [];
  private readonly rejected: RejectedWebhookRecord[] = [];
  private readonly outbox: OutboxRow[] = [];
  /** `orderRef \u0000 key` → intent. */
  private readonly intents = new Map<string, OperationIntent>();
  /** `scope \u0000 key` → times of counted attempts. */
  private readonly velocity = new Map<string, number[]>();
  /** Lease key → holder and expiry. */
  private readonly leases = new Map<string, {owner: string; expiresAt: number}>();
  private nextId = 1;
  private closed = false;

  private check(): void {
    if (this.closed) throw new Error('MemoryPaymentStore is closed');
  }

  async insertAttempt(
    attempt: AttemptRecord,
    reservation?: AttemptReservation,
  ): Promise<InsertAttemptResult> {
    this.check();
    const same = this.attempts.get(attempt.attemptId);
    if (same) return {inserted: false, existing: copy(same), reason: 'same_attempt'};
    const live = [...this.attempts.values()].find(
      (a) => a.orderRef === attempt.orderRef && isLiveAttempt(a),
    );
    if (live) return {inserted: false, existing: copy(live), reason: 'order_has_live_attempt'};
    if (this.byGatewayOrderId.has(attempt.gatewayOrderId)) {
      throw new Error('UNIQUE constraint failed: attempts.gateway_order_id');
    }
    if (reservation) {
      const r = this.reserveNow(reservation.keys, reservation.now, reservation.windowMs);
      if (!r.ok)
        return {inserted: false, reason: 'limited', scope: r.scope, retryAfterMs: r.retryAfterMs};
    }
    this.attempts.set(attempt.attemptId, copy(attempt));
    this.byGatewayOrderId.set(attempt.gatewayOrderId, attempt.attemptId);
    return {inserted: true, attempt: copy(attempt), reserved: reservation !== undefined};
  }

  async getAttempt(attemptId: string): Promise<AttemptRecord | undefined> {
    this.check();
    const a = this.attempts.get(attemptId);
    return a && copy(a);
  }

  async getAttemptByGatewayOrderId(gatewayOrderId: string): Promise<AttemptRecord | undefined> {
    this.check();
    const id = this.byGatewayOrderId.get(gatewayOrderId);
    return id === undefined ? undefined : this.getAttempt(id);
  }

  async listAttempts(orderRef: string): Promise<AttemptRecord[]> {
    this.check();
    return [...this.attempts.values()]
      .filter((a) => a.orderRef === orderRef)
      .sort((a, b) => a.seq - b.seq)
      .map(copy);
  }

  async listAttemptsInStates(states: readonly AttemptState[]): Promise<AttemptRecord[]> {
    this.check();
    return [...this.attempts.values()]
      .filter((a) => states.includes(a.state))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(copy);
  }

  private insertEvent(event: WebhookEventInput): boolean {
    if (this.events.has(event.eventKey)) return false;
    this.events.set(event.eventKey, {...copy(event), id: this.nextId++});
    return true;
  }

  private insertOutbox(update: NewPaymentUpdate, now: number): number {
    const id = this.nextId++;
    this.outbox.push({id, update: copy(update), createdAt: now, failures: 0});
    return id;
  }

  async updateAttempt(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    this.check();
    if (event && !this.insertEvent(event)) {
      return {duplicateEvent: true, attempt: undefined, changed: false};
    }
    const id = 'attemptId' in key ? key.attemptId : this.byGatewayOrderId.get(key.gatewayOrderId);
    const current = id === undefined ? undefined : this.attempts.get(id);
    if (!current) return {duplicateEvent: false, attempt: undefined, changed: false};
    const mutation = mutate(copy(current));
    if (!mutation) return {duplicateEvent: false, attempt: copy(current), changed: false};
    const next = applyPatch(current, mutation.patch);
    this.attempts.set(current.attemptId, next);
    const savedCardId = mutation.saveCard && this.saveCardNow(mutation.saveCard).id;
    const update =
      mutation.update && (savedCardId ? {...mutation.update, savedCardId} : mutation.update);
    const outboxId = update ? this.insertOutbox(update, next.updatedAt) : undefined;
    return {
      duplicateEvent: false,
      attempt: copy(next),
      changed: next.state !== current.state,
      ...(outboxId === undefined ? {} : {outboxId}),
      ...(savedCardId === undefined ? {} : {savedCardId}),
    };
  }

  async recordEvent(event: WebhookEventInput): Promise<boolean> {
    this.check();
    return this.insertEvent(event);
  }

  async listEvents(): Promise<WebhookEventRecord[]> {
    this.check();
    return [...this.events.values()].sort((a, b) => a.id - b.id).map(copy);
  }

  async recordOperation(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event?: WebhookEventInput,
  ): Promise<RecordOperationResult> {
    this.check();
    if (event && !this.insertEvent(event)) return {duplicateEvent: true, inserted: false};
    const exists = this.operations.some(
      (o) =>
        o.gatewayOrderId === operation.gatewayOrderId &&
        o.kind === operation.kind &&
        o.operationId === operation.operationId &&
        o.status === operation.status,
    );
    if (exists) return {duplicateEvent: false, inserted: false};
    this.operations.push({...copy(operation), id: this.nextId++});
    const outboxId = this.insertOutbox(update, operation.createdAt);
    return {duplicateEvent: false, inserted: true, outboxId};
  }

  async listOperations(orderRef: string): Promise<StoredOperation[]> {
    this.check();
    return this.operations.filter((o) => o.orderRef === orderRef).map(copy);
  }

  async recordRejectedWebhook(rejected: RejectedWebhookInput): Promise<void> {
    this.check();
    this.rejected.push({...copy(rejected), id: this.nextId++});
  }

  async listRejectedWebhooks(): Promise<RejectedWebhookRecord[]> {
    this.check();
    return this.rejected.map(copy);
  }

  async pendingOutbox(limit = 100): Promise<OutboxEntry[]> {
    this.check();
    return this.outbox
      .filter((o) => o.deliveredAt === undefined)
      .slice(0, limit)
      .map(outboxEntry);
  }

  async claimOutbox(
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    this.check();
    return this.claim(owner, now, leaseMs, limit);
  }

  private claim(owner: string, now: number, leaseMs: number, limit: number): OutboxEntry[] {
    const free = (o: OutboxRow) =>
      o.deliveredAt === undefined &&
      (o.claimedUntil === undefined || o.claimedUntil <= now || o.claimedBy === owner);
    const rows = this.outbox.filter(free).slice(0, limit);
    for (const o of rows) {
      o.claimedBy = owner;
      o.claimedUntil = now + leaseMs;
    }
    return rows.map(outboxEntry);
  }

  async claimOutboxAfterDelivery(
    delivered: readonly OutboxDelivery[],
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    this.check();
    for (const d of delivered) this.markDelivered(d.id, d.at);
    return this.claim(owner, now, leaseMs, limit);
  }

  async acquireLease(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    this.check();
    const held = this.leases.get(key);
    if (held && held.owner !== owner && held.expiresAt > now) return false;
    this.leases.set(key, {owner, expiresAt: now + leaseMs});
    return true;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    this.check();
    if (this.leases.get(key)?.owner === owner) this.leases.delete(key);
  }

  async markOutboxDelivered(id: number, at: number): Promise<void> {
    this.check();
    this.markDelivered(id, at);
  }

  /** Marks `id` delivered at `at`, unless it was already (the first mark stands). */
  private markDelivered(id: number, at: number): void {
    const row = this.outbox.find((o) => o.id === id);
    if (row && row.deliveredAt === undefined) row.deliveredAt = at;
  }

  async markOutboxFailed(id: number): Promise<void> {
    this.check();
    const row = this.outbox.find((o) => o.id === id);
    if (row) row.failures++;
  }

  async createIntent(
    intent: OperationIntent,
    decide: Parameters<PaymentStore['createIntent']>[1],
    update?: NewPaymentUpdate,
  ): Promise<CreateIntentResult> {
    this.check();
    const id = `${intent.orderRef}\u0000${intent.key}`;
    const existing = this.intents.get(id);
    if (existing) return {created: false, existing: copy(existing)};
    const refused = decide(
      (await this.listIntents(intent.orderRef)).map(copy),
      this.operations.filter((o) => o.orderRef === intent.orderRef).map(copy),
    );
    if (refused) return {created: false, refused};
    this.intents.set(id, copy(intent));
    if (update) this.insertOutbox(update, intent.createdAt);
    return {created: true, intent: copy(intent)};
  }

  async updateIntent(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): Promise<OperationIntent | undefined> {
    this.check();
    const id = `${orderRef}\u0000${key}`;
    const current = this.intents.get(id);
    if (!current) return undefined;
    const m = mutate(copy(current));
    if (!m) return copy(current);
    const next = {...current, ...m.patch};
    this.intents.set(id, next);
    if (m.update) this.insertOutbox(m.update, next.updatedAt);
    return copy(next);
  }

  async getIntent(orderRef: string, key: string): Promise<OperationIntent | undefined> {
    this.check();
    const i = this.intents.get(`${orderRef}\u0000${key}`);
    return i && copy(i);
  }

  async listIntents(orderRef: string): Promise<OperationIntent[]> {
    this.check();
    return [...this.intents.values()].filter((i) => i.orderRef === orderRef).map(copy);
  }

  async listIntentsInStates(states: readonly IntentState[]): Promise<OperationIntent[]> {
    this.check();
    return [...this.intents.values()].filter((i) => states.includes(i.state)).map(copy);
  }

  async reserveAttempt(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): Promise<ReserveAttemptResult> {
    this.check();
    return this.reserveNow(keys, now, windowMs);
  }

  private reserveNow(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): ReserveAttemptResult {
    const since = now - windowMs;
    const lists = keys.map((k) => {
      const id = `${k.scope}\u0000${k.key}`;
      const list = (this.velocity.get(id) ?? []).filter((t) => t > since);
      this.velocity.set(id, list);
      return {k, id, list};
    });
    for (const {k, list} of lists) {
      if (list.length >= k.max) {
        const oldest = list[list.length - k.max]!;
        return {ok: false, scope: k.scope, retryAfterMs: oldest + windowMs - now};
      }
    }
    for (const {list} of lists) list.push(now);
    if (this.velocity.size > 100_000) {
      for (const [id, list] of this.velocity)
        if (list.every((t) => t <= since)) this.velocity.delete(id);
    }
    return {ok: true};
  }

  private readonly savedCards = new Map<string, SavedCardRecord>();

  async saveCard(card: SavedCardRecord): Promise<SavedCardRecord> {
    this.check();
    return this.saveCardNow(card);
  }

  private saveCardNow(card: SavedCardRecord): SavedCardRecord {
    const live = [...this.savedCards.values()].find(
      (c) => c.customerId === card.customerId && c.token === card.token && !c.deletedAt,
    );
    if (live) return copy(live);
    if (!this.savedCards.has(card.id)) this.savedCards.set(card.id, copy(card));
    return copy(this.savedCards.get(card.id)!);
  }

  async getSavedCard(id: string): Promise<SavedCardRecord | undefined> {
    this.check();
    const card = this.savedCards.get(id);
    return card && copy(card);
  }

  async listSavedCards(customerId?: string): Promise<SavedCardRecord[]> {
    this.check();
    return [...this.savedCards.values()]
      .filter((c) => !c.deletedAt && (customerId === undefined || c.customerId === customerId))
      .sort((a, b) =>
        customerId === undefined && a.customerId !== b.customerId
          ? a.customerId < b.customerId
            ? -1
            : 1
          : a.createdAt - b.createdAt,
      )
      .map(copy);
  }

  async deleteSavedCard(customerId: string, id: string, at: number): Promise<boolean> {
    this.check();
    const card = this.savedCards.get(id);
    if (!card || card.customerId !== customerId || card.deletedAt) return false;
    card.deletedAt = at;
    card.token = '';
    return true;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
