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
export function failureText(error: unknown): string;
export function failureLine(file: string, name: string, error: unknown): string;
export function failures(text: string): {file: string; failed: string; error: string}[];
export function failureReport(
  list: {file: string; failed: string; error: string}[],
  max?: number,
): string;
