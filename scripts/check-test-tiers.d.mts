// Types of check-test-tiers.mjs (used by test/node/tiers/checks.test.ts).
export const POSTGRES_GATE: string;
export const CONSTANTS_ONLY: Record<string, string>;
export function tierBreaches(options?: {
  files?: string[];
  halves?: string[];
  baseDir?: string;
}): string[];
