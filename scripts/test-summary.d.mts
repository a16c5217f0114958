// Types of test-summary.mjs (used by test/node/tiers/checks.test.ts).
export interface Tally {
  name: string;
  passed: number;
  failed: number;
  cancelled: number;
  skipped: number;
  todo: number;
  ms: number;
  code: number;
}
export function newTally(name: string): Tally;
export function counter(tally: Tally): {line(line: string): void; end(): void};
export function slowestFiles(text: string): [string, number][];
export function closingLine(tallies: Tally[]): {
  line: string;
  passed: number;
  failed: number;
  skipped: number;
};
