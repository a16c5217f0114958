/**
 * Reading the gateway's answers: an HTTP answer as the transport hands it over, JSON and
 * list bodies (the spec does not always show their shape), and the protocol errors of an
 * answer that is not JSON or not the shape the spec gives. Errors name fields and rules,
 * never values.
 */
import type * as z from 'zod';
import {GatewayProtocolError} from '../errors.js';
import {formatIssues} from '../schemas.js';

/** One HTTP answer: its status, headers, whole body text, and the address asked. */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  url: string;
}

/** The JSON value of `body`, or `{ok: false}` when it is not JSON. */
export function parseJson(body: string): {ok: true; value: unknown} | {ok: false} {
  try {
    return {ok: true, value: JSON.parse(body)};
  } catch {
    return {ok: false};
  }
}

/** Parses newline-delimited JSON; `undefined` when a line is not JSON. */
function parseNdjson(body: string): unknown[] | undefined {
  const out: unknown[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const json = parseJson(line);
    if (!json.ok) return undefined;
    out.push(json.value);
  }
  return out;
}

/**
 * A list body whose exact shape the spec does not show: a JSON array, an object holding
 * one array (`{"transactions": [...]}`), a single record, or one JSON object per line.
 */
export function parseListBody(body: string): unknown[] | undefined {
  if (body.trim() === '') return [];
  const json = parseJson(body);
  if (!json.ok) return parseNdjson(body);
  const value = json.value;
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const arrays = Object.values(value).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
    return [value];
  }
  return undefined;
}

/** The answer is not JSON: says its status, type and length, never its text. */
export function notJson(answer: Answer, what: string): GatewayProtocolError {
  const type = answer.headers.get('content-type');
  return new GatewayProtocolError(
    `the ${what} is not JSON (HTTP ${answer.status}${type ? `, ${type.split(';')[0]}` : ''}, ${answer.body.length} characters)`,
    {status: answer.status},
  );
}

/** The answer is JSON of the wrong shape: names each field and rule. */
export function shapeError(
  answer: Answer,
  what: string,
  error: z.ZodError,
  value: unknown,
): GatewayProtocolError {
  const issues = formatIssues(error, value);
  return new GatewayProtocolError(
    `the ${what} does not have the shape the spec gives: ${issues
      .slice(0, 10)
      .map((i) => `${i.field}: ${i.message}`)
      .join('; ')}`,
    {status: answer.status, issues},
  );
}

/** The answer's JSON value, or a protocol error. */
export function readJson(answer: Answer, what: string): unknown {
  const json = parseJson(answer.body);
  if (!json.ok) throw notJson(answer, what);
  return json.value;
}

/** The answer's JSON, checked with `schema`, or a protocol error naming the fields. */
export function readRecord<S extends z.ZodType>(
  answer: Answer,
  schema: S,
  what: string,
): z.output<S> {
  const value = readJson(answer, what);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw shapeError(answer, what, parsed.error, value);
  return parsed.data;
}

/** A list answer (see {@link parseListBody}), each item checked with `item`. */
export function readList<S extends z.ZodType>(
  answer: Answer,
  item: S,
  what: string,
): z.output<S>[] {
  const list = parseListBody(answer.body);
  if (list === undefined) throw notJson(answer, what);
  const parsed = item.array().safeParse(list);
  if (!parsed.success) throw shapeError(answer, what, parsed.error, list);
  return parsed.data as z.output<S>[];
}
