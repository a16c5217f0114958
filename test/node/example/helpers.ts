/**
 * What the example app's tests share: data folders removed when the file's tests end,
 * gateway client options pointing at a sandbox, and `call`, one request over a fresh
 * connection from a given local address (127.0.0.x), for the per-address throttles.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import http from 'node:http';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Sandbox} from '../../../sandbox/index.js';
import type {GatewayClientOptions} from '../../../src/server/index.js';

/** Makes temporary data folders; `removeAll()` deletes every one it made. */
export function dataDirs(prefix: string) {
  const dirs: string[] = [];
  return {
    make(): string {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    removeAll(): void {
      for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true});
    },
  };
}

/** Client options for `sandbox`'s credentials (`baseUrl` and more may be overridden). */
export function sandboxGateway(
  sandbox: Sandbox,
  extra: Partial<GatewayClientOptions> = {},
): GatewayClientOptions {
  return {...sandbox.clientOptions(), ...extra};
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request over a fresh connection, from `from` (a local address such as 127.0.0.2). */
export function call(
  base: string,
  pathname: string,
  opts: {method?: string; headers?: Record<string, string>; body?: string; from?: string} = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, {
      method: opts.method ?? 'GET',
      agent: false,
      headers: opts.headers ?? {},
      ...(opts.from ? {localAddress: opts.from} : {}),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(parts).toString(),
        }),
      );
    });
    req.end(opts.body);
  });
}
