/**
 * `npm run sandbox`: starts the gateway sandbox on loopback and prints what a developer
 * needs to try it by hand: the base URL, the test credentials, the test cards, the
 * inspection endpoints and the faults. Port and credentials come from `SANDBOX_PORT`,
 * `SANDBOX_POS_ID`, `SANDBOX_API_KEY`, `SANDBOX_API_SECRET`, `SANDBOX_ENDPOINTS_KEY`. It
 * stops cleanly on SIGINT and SIGTERM.
 */
import {ADMIN_ENDPOINTS, DEFAULT_CREDENTIALS, FAULTS, TEST_CARDS, startSandbox} from './index.js';

const env = process.env;
const port = Number(env['SANDBOX_PORT'] ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number from 0 to 65535, got ${env['SANDBOX_PORT']}`);
  process.exit(2);
}

const credentials = {
  posId: env['SANDBOX_POS_ID'] || DEFAULT_CREDENTIALS.posId,
  apiKey: env['SANDBOX_API_KEY'] || DEFAULT_CREDENTIALS.apiKey,
  apiSecret: env['SANDBOX_API_SECRET'] || DEFAULT_CREDENTIALS.apiSecret,
  endpointsKey: env['SANDBOX_ENDPOINTS_KEY'] || DEFAULT_CREDENTIALS.endpointsKey,
};

let sandbox;
try {
  sandbox = await startSandbox({
    port,
    host: '127.0.0.1',
    credentials,
    webhook: {duplicateRate: 0.2, reverseOrderRate: 0.05, seed: Date.now() % 2 ** 31},
    ...(env['SANDBOX_PUBLIC_URL'] ? {publicUrl: env['SANDBOX_PUBLIC_URL']} : {}),
  });
} catch (err) {
  console.error(`sandbox: could not start: ${(err as Error).message}`);
  process.exit(1);
}

const c = sandbox.credentials;
const pad = (s: string, n: number) => s.padEnd(n);
console.log(`Gateway sandbox listening on ${sandbox.url}

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
