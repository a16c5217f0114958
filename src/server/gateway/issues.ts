/**
 * Validation problems as field issues (dotted path and rule, never the value), shared by
 * the client, the sandbox and the companion.
 */
import * as z from 'zod';

/** One problem with a field: its dotted path and the rule it broke. Never the value. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Turns zod issues into field issues ("amount", "must be positive ..."). Pass the parsed
 * `input` so a missing field reads "is required"; values are never included.
 */
export function formatIssues(error: z.ZodError, input?: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({field: [...path, key].join('.'), message: 'is not a field of this request'});
      continue;
    }
    // A built-in issue (wrong type, no union member, not an enum value) at a path that holds
    // nothing means the field is missing. Custom rules already say what they mean.
    const missing =
      issue.code !== 'custom' &&
      issue.path.length > 0 &&
      input !== undefined &&
      valueAt(input, issue.path) === undefined;
    out.push({field: path.join('.') || '(body)', message: missing ? 'is required' : issue.message});
  }
  return out;
}

/**
 * `input` checked with `schema`: its data, or the field issues that refuse it (see
 * {@link formatIssues}). The one way the client and the sandbox check a request; each turns
 * the issues into its own error.
 */
export function parseOrIssues<S extends z.ZodType>(
  schema: S,
  input: unknown,
): {ok: true; data: z.output<S>} | {ok: false; issues: FieldIssue[]} {
  const parsed = schema.safeParse(input);
  return parsed.success
    ? {ok: true, data: parsed.data}
    : {ok: false, issues: formatIssues(parsed.error, input)};
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One line naming every field and rule, e.g. `amount: must be positive ...; currency: ...`. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}
