/**
 * What the example app's tests share: data folders removed when the file's tests end, and
 * gateway client options pointing at a sandbox.
 */
import {mkdtempSync, rmSync} from 'node:fs';
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
