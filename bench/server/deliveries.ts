/**
 * What became of each request a benchmark sent, by its identity: answered 2xx (the sender
 * takes it as delivered), answered with another status, or not answered (a timeout, a
 * connection error, still open when the step ended) — beside whether the server stored
 * it, read from its store once it is idle. Counting rows against answers cannot tell these
 * apart: a request the generator gave up on may still be stored, and one stored row then
 * hides one answered request that was not (the `lost: -11` of issue #16). Here `lost` is
 * the answered-2xx requests that are not stored, each by name, and must be 0; stored
 * requests without an answer are counted beside it (the sender would deliver them again).
 */
import {answeredStatus} from './http-post.js';

/** One request sent: its identity and its outcome from the open loop. */
export interface Delivery {
  id: string;
  outcome: true | string;
}

export interface DeliveryTally {
  sent: number;
  /** Answered 2xx: the sender takes them as delivered. */
  answeredOk: number;
  /** Answered with another status, by status. */
  answeredError: Record<string, number>;
  /** Not answered, by what happened (`unanswered`: still open when the step ended). */
  unanswered: Record<string, number>;
  /** Sent and found in the store. */
  stored: number;
  /** Answered 2xx but not stored: a delivery acknowledged and then missing. Must be 0. */
  lost: number;
  /** The first lost identities (up to 10). */
  lostIds: string[];
  /** Stored without an answer: fine (the sender retries, the server deduplicates). */
  unansweredStored: number;
  /** Answered with an error status yet stored: fine for the same reason. */
  answeredErrorStored: number;
}

const add = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

/**
 * Tallies `deliveries` (`expectedStatus`: the status the target answers a success with)
 * against the identities found in the store.
 */
export function tallyDeliveries(
  deliveries: Iterable<Delivery>,
  expectedStatus: number,
  stored: ReadonlySet<string>,
): DeliveryTally {
  const t: DeliveryTally = {
    sent: 0,
    answeredOk: 0,
    answeredError: {},
    unanswered: {},
    stored: 0,
    lost: 0,
    lostIds: [],
    unansweredStored: 0,
    answeredErrorStored: 0,
  };
  for (const {id, outcome} of deliveries) {
    t.sent++;
    const isStored = stored.has(id);
    if (isStored) t.stored++;
    const status = answeredStatus(outcome, expectedStatus);
    if (status === undefined) {
      add(t.unanswered, String(outcome));
      if (isStored) t.unansweredStored++;
    } else if (status >= 200 && status < 300) {
      t.answeredOk++;
      if (!isStored) {
        t.lost++;
        if (t.lostIds.length < 10) t.lostIds.push(id);
      }
    } else {
      add(t.answeredError, String(status));
      if (isStored) t.answeredErrorStored++;
    }
  }
  return t;
}

/** The number of requests in `counts` (`answeredError`, `unanswered`). */
export const total = (counts: Record<string, number>) =>
  Object.values(counts).reduce((a, b) => a + b, 0);
