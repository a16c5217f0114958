/**
 * How the sandbox answers over HTTP: JSON, NDJSON and page responses with their headers,
 * the `{message, args: {code}}` error answer, and the signature of a route registrar the
 * app hands to the modules that add routes of their own (customer pages, inspection).
 */
import type {Context} from 'hono';
import type {SandboxError} from './errors.js';
import {PAGE_CSP} from './pages.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {'content-type': JSON_TYPE, ...headers},
  });
}

export function errorResponse(err: SandboxError, headers: Record<string, string> = {}): Response {
  return json(err.status, err.body(), headers);
}

export function ndjson(lines: readonly string[]): Response {
  return new Response(lines.length ? `${lines.join('\n')}\n` : '', {
    status: 200,
    headers: {'content-type': NDJSON_TYPE},
  });
}

export function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}

/** Adds a non-gateway route (no gateway authentication) and remembers its path and method. */
export type RegisterPage = (
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  handler: (c: Context) => Response | Promise<Response>,
) => void;
