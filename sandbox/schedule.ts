/**
 * Subscription schedule arithmetic, pure and in UTC: the n-th charge time of a
 * subscription from its anchor (start date and time of day), its interval unit and count.
 * Months, quarters and years move on calendar months from the anchor's day, clamping to
 * the month's end (Jan 31 → Feb 28 or 29 → Mar 31), so a short month never shifts the
 * later charges.
 */

export type IntervalUnit = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** Where a schedule starts: a calendar date and a UTC time of day. */
export interface ScheduleAnchor {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const MONTHS_PER_UNIT = {month: 1, quarter: 3, year: 12} as const;

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** Unix ms of the charge `k` intervals after the anchor (k = 0 is the anchor itself). */
export function occurrence(
  anchor: ScheduleAnchor,
  unit: IntervalUnit,
  count: number,
  k: number,
): number {
  const {year, month, day, hour, minute, second} = anchor;
  if (unit === 'day' || unit === 'week') {
    const days = (unit === 'day' ? 1 : 7) * count * k;
    return Date.UTC(year, month - 1, day + days, hour, minute, second);
  }
  const total = month - 1 + MONTHS_PER_UNIT[unit] * count * k;
  const y = year + Math.floor(total / 12);
  const m0 = total % 12;
  return Date.UTC(y, m0, Math.min(day, daysInMonth(y, m0)), hour, minute, second);
}

/** The anchor of a subscription: `start_date` (or the creation date) at `time` (or the creation time). */
export function anchorOf(created: Date, startDate?: string, time?: string): ScheduleAnchor {
  const [y, mo, d] = startDate
    ? (startDate.split('-').map(Number) as [number, number, number])
    : [created.getUTCFullYear(), created.getUTCMonth() + 1, created.getUTCDate()];
  const [h, mi, s] = time
    ? (time.split(':').map(Number) as [number, number, number])
    : [created.getUTCHours(), created.getUTCMinutes(), created.getUTCSeconds()];
  return {year: y, month: mo, day: d, hour: h, minute: mi, second: s};
}

/**
 * The index (`k` of {@link occurrence}) of a subscription's first charge: the start date
 * itself when one was sent, else one interval after the creation date.
 */
export function firstChargeIndex(startDate?: string): number {
  return startDate ? 0 : 1;
}

/** `YYYY-MM-DD` of a Unix ms time, in UTC. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
