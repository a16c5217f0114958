// Types of check-test-clocks.mjs (used by test/node/tiers/checks.test.ts).
export interface ClockUse {
  line: number;
  what: string;
  text: string;
}
export interface Allowance {
  uses: number;
  why: string;
}
export const CLOCK_PATTERNS: {what: string; test: RegExp}[];
export const LEGITIMATE: Record<string, Allowance>;
export const PENDING: Record<string, Allowance>;
export function clockUses(source: string): ClockUse[];
export function testSources(baseDir?: string, dir?: string): string[];
export function clockBreaches(allowed: Record<string, Allowance>, baseDir?: string): string[];
