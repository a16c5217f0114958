/** Request validation for the engine: the gateway core's schemas, answered as V-400. */
import type * as z from 'zod';
import {describeIssues, parseOrIssues} from '../../src/server/gateway/index.js';
import {SandboxError} from '../errors.js';

/** Validates `input` with `schema`, or throws a V-400 naming every field and rule. */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const parsed = parseOrIssues(schema, input);
  if (parsed.ok) return parsed.data;
  throw new SandboxError('V-400', `${what}: ${describeIssues(parsed.issues)}`, {
    fields: parsed.issues.map((i) => i.field),
  });
}
