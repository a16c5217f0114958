/**
 * Starts the example merchant app (`npm start`): reads and checks its configuration from
 * the environment (see `.env.example`), starts the embedded gateway sandbox when no
 * `GATEWAY_BASE_URL` is given, recovers what a previous run left open, and serves the shop
 * and the checkout companion on http://localhost:8080 (`PORT`).
 */
import {serve} from '@hono/node-server';
import path from 'node:path';
import * as z from 'zod';
import {startSandbox, TEST_CARDS, type Sandbox} from '../sandbox/index.js';
import {createExampleApp} from './app.js';

const Env = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535).default(8080),
    DATA_DIR: z.string().min(1).default('./data'),
    PUBLIC_URL: z.url().optional(),
    GATEWAY_BASE_URL: z.url().optional(),
    POS_ID: z.uuid().optional(),
    API_KEY: z.string().min(1).optional(),
    API_SECRET: z.string().min(1).optional(),
    ENDPOINTS_KEY: z.string().min(1).optional(),
    ADMIN_TOKEN: z.string().min(16, {message: 'must be at least 16 characters'}).optional(),
  })
  .superRefine((env, ctx) => {
    if (!env.GATEWAY_BASE_URL) return;
    for (const key of ['POS_ID', 'API_KEY', 'API_SECRET'] as const) {
      if (!env[key])
        ctx.addIssue({code: 'custom', path: [key], message: 'is required with GATEWAY_BASE_URL'});
    }
  });

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);
const parsed = Env.safeParse(
  Object.fromEntries(Object.keys(Env.shape).map((k) => [k, blank(process.env[k])])),
);
if (!parsed.success) {
  for (const issue of parsed.error.issues) {
    console.error(`server-example: ${issue.path.join('.')}: ${issue.message}`);
  }
  console.error('server-example: see server-example/.env.example');
  process.exit(1);
}
const env = parsed.data;

let sandbox: Sandbox | undefined;
let gateway;
if (env.GATEWAY_BASE_URL) {
  gateway = {
    baseUrl: env.GATEWAY_BASE_URL,
    posId: env.POS_ID!,
    credentials: {
      apiKey: env.API_KEY!,
      apiSecret: env.API_SECRET!,
      ...(env.ENDPOINTS_KEY ? {endpointsKey: env.ENDPOINTS_KEY} : {}),
    },
  };
} else {
  sandbox = await startSandbox({port: 0});
  gateway = {
    baseUrl: sandbox.url,
    posId: sandbox.credentials.posId,
    credentials: {
      apiKey: sandbox.credentials.apiKey,
      apiSecret: sandbox.credentials.apiSecret,
      endpointsKey: sandbox.credentials.endpointsKey,
    },
  };
  console.log(`Embedded gateway sandbox: ${sandbox.url} (inspect it at ${sandbox.url}/sandbox)`);
  console.log('Test cards (any future expiry, any CVV):');
  for (const card of TEST_CARDS) console.log(`  ${card.number}  ${card.outcome}`);
}

const publicUrl = env.PUBLIC_URL ?? `http://localhost:${env.PORT}`;
const example = createExampleApp({
  publicUrl,
  extraOrigins: env.PUBLIC_URL ? [] : [`http://127.0.0.1:${env.PORT}`],
  dataDir: path.resolve(env.DATA_DIR),
  gateway,
  ...(env.ADMIN_TOKEN ? {adminToken: env.ADMIN_TOKEN} : {}),
});
await example.start();

const server = serve({fetch: example.app.fetch, port: env.PORT}, (info) => {
  console.log(`Example shop and checkout companion: ${publicUrl} (port ${info.port})`);
  console.log(`Payments database: ${path.resolve(env.DATA_DIR, 'payments.db')}`);
});

// A lost webhook must not strand a payment: look open attempts up now and then.
const sweep = setInterval(() => {
  example.checkout
    .reconcileOpen()
    .catch((error: unknown) => console.error('reconcile failed', error));
}, 30_000);
sweep.unref();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  clearInterval(sweep);
  server.close();
  await example.close();
  await sandbox?.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
