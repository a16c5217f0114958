#!/usr/bin/env node
/**
 * `pg-checkout-sandbox` (the package's bin) and `npm run sandbox`: starts the gateway
 * sandbox on loopback and prints what a developer needs to try it by hand: the base URL,
 * the test credentials, the test cards, the inspection endpoints and the faults. Port and
 * credentials come from flags (`--port`, `--pos-id`, `--api-key`, `--api-secret`,
 * `--endpoints-key`, `--public-url`, `--profile`; `--help` lists them), else from
 * `SANDBOX_PORT`, `SANDBOX_POS_ID`, `SANDBOX_API_KEY`, `SANDBOX_API_SECRET`,
 * `SANDBOX_ENDPOINTS_KEY`, `SANDBOX_PUBLIC_URL`, `SANDBOX_PROFILE`; `--version` prints the
 * version of pg-checkout it comes with. It stops cleanly on SIGINT and SIGTERM. The
 * sandbox's packages (hono, @hono/node-server, zod) are optional peers of pg-checkout: a
 * missing one is named, with the command that installs it, before anything starts.
 */
import {createRequire} from 'node:module';
import {parseArgs} from 'node:util';
import {requirePeers} from '../src/server/optional-peers.js';
import type {Sandbox} from './index.js';

const USAGE = `Usage: pg-checkout-sandbox [options]

Starts the pg-checkout gateway sandbox on 127.0.0.1 and prints its URL, credentials,
test cards, inspection endpoints and faults.

Options (each falls back to the environment variable in brackets):
  --port <n>             TCP port, 0 for any free one [SANDBOX_PORT] (default 4010)
  --pos-id <uuid>        POS id [SANDBOX_POS_ID]
  --api-key <key>        API key [SANDBOX_API_KEY]
  --api-secret <secret>  API secret, also signs webhooks [SANDBOX_API_SECRET]
  --endpoints-key <key>  X-API-Key of the endpoints [SANDBOX_ENDPOINTS_KEY]
  --public-url <url>     base of the URLs it hands out, behind a proxy [SANDBOX_PUBLIC_URL]
  --profile <name>       live (default): tolerates what the live gateway tolerates and
                         warns where a request relies on it; strict: the spec to the
                         letter [SANDBOX_PROFILE]
  -v, --version          the version of pg-checkout it comes with
  -h, --help             this text`;

let flags;
try {
  flags = parseArgs({
    options: {
      port: {type: 'string'},
      'pos-id': {type: 'string'},
      'api-key': {type: 'string'},
      'api-secret': {type: 'string'},
      'endpoints-key': {type: 'string'},
      'public-url': {type: 'string'},
      profile: {type: 'string'},
      help: {type: 'boolean', short: 'h'},
      version: {type: 'boolean', short: 'v'},
    },
    strict: true,
    allowPositionals: false,
  }).values;
} catch (err) {
  console.error(`pg-checkout-sandbox: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
if (flags.version) {
  // The package's own package.json, by its name (a package may import itself through its
  // "exports"): the same file from sandbox/ in the repository and from dist/sandbox/ installed.
  const {version} = createRequire(import.meta.url)('pg-checkout/package.json') as {version: string};
  console.log(`pg-checkout-sandbox ${version}`);
  process.exit(0);
}

try {
  await requirePeers('pg-checkout-sandbox', ['hono', '@hono/node-server', 'zod']);
} catch (err) {
  console.error((err as Error).message); // "pg-checkout-sandbox needs hono, ...: npm i hono ..."
  process.exit(1);
}
const {
  ADMIN_ENDPOINTS,
  DEFAULT_CREDENTIALS,
  FAULTS,
  LENIENCY_RULES,
  PROFILES,
  TEST_CARDS,
  startSandbox,
} = await import('./index.js');

const env = process.env;
const portText = flags.port ?? env['SANDBOX_PORT'] ?? '4010';
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65535) {
  console.error(
    `pg-checkout-sandbox: --port must be a port number from 0 to 65535, got ${portText}`,
  );
  process.exit(2);
}

const credentials = {
  posId: flags['pos-id'] || env['SANDBOX_POS_ID'] || DEFAULT_CREDENTIALS.posId,
  apiKey: flags['api-key'] || env['SANDBOX_API_KEY'] || DEFAULT_CREDENTIALS.apiKey,
  apiSecret: flags['api-secret'] || env['SANDBOX_API_SECRET'] || DEFAULT_CREDENTIALS.apiSecret,
  endpointsKey:
    flags['endpoints-key'] || env['SANDBOX_ENDPOINTS_KEY'] || DEFAULT_CREDENTIALS.endpointsKey,
};
const publicUrl = flags['public-url'] || env['SANDBOX_PUBLIC_URL'];
const profileText = flags.profile || env['SANDBOX_PROFILE'] || 'live';
const profile = PROFILES.find((p) => p === profileText);
if (profile === undefined) {
  console.error(
    `pg-checkout-sandbox: --profile must be ${PROFILES.join(' or ')}, got ${profileText}`,
  );
  process.exit(2);
}

let sandbox: Sandbox;
try {
  sandbox = await startSandbox({
    port,
    host: '127.0.0.1',
    credentials,
    webhook: {duplicateRate: 0.2, reverseOrderRate: 0.05, seed: Date.now() % 2 ** 31},
    profile,
    ...(publicUrl ? {publicUrl} : {}),
  });
} catch (err) {
  console.error(`pg-checkout-sandbox: could not start: ${(err as Error).message}`);
  process.exit(1);
}

const c = sandbox.credentials;
const pad = (s: string, n: number) => s.padEnd(n);
const profileBanner =
  profile === 'live'
    ? `live: tolerates what the live gateway tolerates, and warns on each request that relies
on it (strict refuses those requests; --profile strict for the spec to the letter):
${Object.entries(LENIENCY_RULES)
  .map(([k, v]) => `  ${pad(k, 28)} ${v}`)
  .join('\n')}`
    : 'strict: every request is checked against the spec to the letter';

console.log(`Gateway sandbox listening on ${sandbox.url}

Profile ${profileBanner}

Credentials (test only):
  POS_ID         ${c.posId}
  API key        ${c.apiKey}
  API secret     ${c.apiSecret}
  Endpoints key  ${c.endpointsKey}
  Header         X-API-Auth: CPAY ${c.apiKey}:${c.apiSecret}
                 X-API-Key: ${c.endpointsKey}

Test cards (any future expiry, any 3-digit CVV):
${TEST_CARDS.map((t) => `  ${t.number}  ${pad(t.status, 8)} ${pad(t.statusCode, 5)} ${t.description}`).join('\n')}
  any other Luhn-valid number succeeds; a Luhn-invalid number is a 400.

Inspection and control (no auth):
${Object.entries(ADMIN_ENDPOINTS)
  .map(([k, v]) => `  ${pad(k, 34)} ${v}`)
  .join('\n')}

Faults (header X-Sandbox-Fault, or POST /sandbox/faults):
${Object.entries(FAULTS)
  .map(([k, v]) => `  ${pad(k, 20)} ${v}`)
  .join('\n')}

Webhooks: 20% are duplicated and 5% followed by a stale copy on purpose. Ctrl-C stops.`);

const stop = (signal: string) => {
  console.log(`\nsandbox: ${signal}, stopping`);
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
