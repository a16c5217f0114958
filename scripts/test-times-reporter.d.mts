// Types of test-times-reporter.mjs (used by test/node/tiers/checks.test.ts).
export default function timesReporter(
  source: AsyncIterable<{type: string; data?: Record<string, unknown>}>,
): AsyncGenerator<string>;
export function timesReporterArgs(): string[];
