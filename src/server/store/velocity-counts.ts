/**
 * The card-testing counts of the store core (`algorithms.ts`): per key (an address, a card,
 * an order) the attempts counted in a sliding window, checked and counted under the keys'
 * locks, so that two requests never pass the same last place; one statement for every key
 * on PostgreSQL (arrays), one per key on SQLite, the texts `statements.ts`'s.
 */
import {step, type Steps, type StorePort} from './algorithms.js';
import type {AttemptReservation, ReserveAttemptResult, VelocityKey} from './payment-store.js';

/** The lock of a card-testing key (the same text as earlier versions took: one lock space). */
const velocityLock = (k: VelocityKey) => `velocity:${JSON.stringify([k.scope, k.key])}`;

/**
 * The locks of a reservation's keys, in sorted order, so that two reservations sharing
 * keys never wait on each other in a circle.
 */
export function* lockVelocity(p: StorePort, keys: readonly VelocityKey[]): Steps<void> {
  for (const key of [...new Set(keys.map(velocityLock))].sort()) yield* step(p.lock(key));
}

/**
 * The first key of `r` at its limit, and when a place frees; `undefined`: all have room.
 * The keys' locks are the caller's. PostgreSQL reads every key in one statement; SQLite
 * one each, stopping at the first full one.
 */
export function* velocityRefusal(
  p: StorePort,
  r: AttemptReservation,
): Steps<{scope: string; retryAfterMs: number} | undefined> {
  const since = r.now - r.windowMs;
  const full: (number | null)[] = [];
  if (p.sql.batched) {
    const args = [since, r.keys.map((k) => k.scope), r.keys.map((k) => k.key)];
    const rows = yield* step(p.all(p.sql.velocityNthAll, [...args, r.keys.map((k) => k.max)]));
    for (const row of rows) full.push(row['at'] === null ? null : Number(row['at']));
  } else {
    for (const k of r.keys) {
      const row = yield* step(p.get(p.sql.velocityNth, [k.scope, k.key, since, k.max - 1]));
      full.push(row ? Number(row['at']) : null);
      if (row) break;
    }
  }
  const i = full.findIndex((at) => at !== null);
  if (i < 0) return undefined;
  // The count whose leaving the window frees a place: the max-th newest.
  return {scope: r.keys[i]!.scope, retryAfterMs: full[i]! + r.windowMs - r.now};
}

/** Counts one attempt per key of `r` (after {@link velocityRefusal}, in its transaction). */
export function* countVelocity(p: StorePort, r: AttemptReservation): Steps<void> {
  if (p.sql.batched) {
    const args = [r.now, r.keys.map((k) => k.scope), r.keys.map((k) => k.key)];
    yield* step(p.run(p.sql.velocityCountAll, args));
  } else {
    for (const k of r.keys) yield* step(p.run(p.sql.velocityCount, [k.scope, k.key, r.now]));
  }
  yield* pruneVelocity(p, r);
}

/** Counts out of every window deleted, once a minute at most. */
export function* pruneVelocity(p: StorePort, r: AttemptReservation): Steps<void> {
  if (r.now - p.prunedAt > 60_000) {
    p.prunedAt = r.now;
    yield* step(p.run(p.sql.velocityPrune, [r.now - r.windowMs]));
  }
}

/** Card-testing limits: every key under its limit, then one count each. */
export function* reserveAttempt(p: StorePort, r: AttemptReservation): Steps<ReserveAttemptResult> {
  yield* lockVelocity(p, r.keys);
  const refused = yield* velocityRefusal(p, r);
  if (refused) return {ok: false, ...refused};
  yield* countVelocity(p, r);
  return {ok: true};
}
