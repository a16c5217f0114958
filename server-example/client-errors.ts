/**
 * The answers Node's HTTP server gives by itself, before any route sees a request: a head
 * that did not arrive within `HEADERS_TIMEOUT_MS`, or a request within `REQUEST_TIMEOUT_MS`
 * (408), a head too large (431), one that cannot be parsed (400). Node writes them bare;
 * here they carry the headers every answer of the app carries (never cached, sniffed or
 * framed: the companion's `NO_STORE`), a JSON error body as the checkout's errors have, and
 * `Connection: close`; the connection is then closed, as Node does. Like Node, nothing is
 * written once an answer to the request has begun, nor on a connection the client has
 * already closed.
 */
import {STATUS_CODES, type Server} from 'node:http';
import type {Duplex} from 'node:stream';
import {NO_STORE} from '../src/server/http/app-parts.js';

/** The status of each client error Node reports (`clientError`); any other is a 400. */
const STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

/** The raw HTTP/1.1 answer of `status`, with `message`. */
function rawAnswer(status: number, message: string): string {
  const body = JSON.stringify({error: {code: 'invalid_request', message}});
  const headers = {
    ...NO_STORE,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `\r\n${body}`
  );
}

/**
 * Answers `server`'s client errors as the module comment says; `deadlines` name the
 * timeouts in the 408's message.
 */
export function answerClientErrors(
  server: Server,
  deadlines: {headersMs: number; requestMs: number},
): void {
  const messages: Record<number, string> = {
    408: `the request did not arrive in time: its head within ${deadlines.headersMs} ms, all of it within ${deadlines.requestMs} ms`,
    413: 'a chunk extension is too large',
    431: 'the request head is too large',
    400: 'the request is not valid HTTP/1.1',
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The request being answered on this connection, if any (Node's own test, on its own field).
    const answering = (socket as {_httpMessage?: {headersSent?: boolean} | null})._httpMessage;
    if (socket.writable && !answering?.headersSent) {
      const status = STATUS[error.code ?? ''] ?? 400;
      socket.write(rawAnswer(status, messages[status]!));
    }
    socket.destroy(error);
  });
}
