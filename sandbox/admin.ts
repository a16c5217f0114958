/**
 * The sandbox's inspection and control endpoints under `/sandbox/` (and `/health`): no
 * gateway authentication, as befits a local emulator. They list payments, subscriptions,
 * webhooks, fault rules and the live profile's leniencies, and move the clock.
 */
import type {Context} from 'hono';
import * as z from 'zod';
import {GATEWAY_ENDPOINTS} from '../src/server/gateway/index.js';
import {SANDBOX_CODES, TEST_CARDS} from './cards.js';
import type {SandboxClock} from './clock.js';
import type {SandboxEngine} from './engine/index.js';
import {REGISTER_DEFAULT_FIELDS, validate} from './engine/index.js';
import {ERROR_CODES, SandboxError} from './errors.js';
import {FAULTS, FaultRuleInput} from './faults.js';
import type {FaultRules} from './faults.js';
import {LENIENCY_RULES} from './profiles.js';
import type {LeniencyLog, Profile} from './profiles.js';
import {json} from './responses.js';
import type {RegisterPage} from './responses.js';
import type {WebhookDispatcher} from './webhooks.js';

/** What the inspection endpoints read and control. */
export interface AdminDeps {
  engine: SandboxEngine;
  credentials: {posId: string};
  clock: SandboxClock;
  webhooks: WebhookDispatcher;
  faults: FaultRules;
  webhookSchedule: readonly number[];
  advance: (ms: number) => Promise<void>;
  profile: Profile;
  leniencyLog: LeniencyLog;
}

/** The inspection and control endpoints, for the index and the CLI banner. */
export const ADMIN_ENDPOINTS = {
  'GET /health': 'Answers OK',
  'GET /sandbox': 'This index: endpoints, faults, codes',
  'GET /sandbox/cards': 'Test cards and their outcomes',
  'GET /sandbox/payments': 'Every primary payment with status and operations (card mask only)',
  'GET /sandbox/subscriptions': 'Every subscription with its next charge time',
  'GET /sandbox/webhooks': 'Webhook delivery log (every attempt)',
  'DELETE /sandbox/webhooks': 'Clears the delivery log',
  'GET /sandbox/clock': 'Sandbox clock',
  'POST /sandbox/clock/advance': 'Moves the clock: {"ms"|"seconds"|"minutes"|"hours"|"days": n}',
  'GET /sandbox/leniencies':
    'Requests the live profile accepted only by a tolerance the strict profile refuses',
  'DELETE /sandbox/leniencies': 'Clears that list',
  'GET /sandbox/faults': 'Fault rules in effect',
  'POST /sandbox/faults':
    'Adds a rule: {"match": {"order_id"?, "card_last4"?, "recurring_id"?}, "fault", "times"?}',
  'DELETE /sandbox/faults': 'Removes every fault rule',
  'GET /sandbox/3ds/:paymentId': 'The 3-D Secure challenge page (user_action_url)',
  'GET /sandbox/checkout/:paymentId': 'The hosted checkout page (the 303 location)',
} as const;

const AdvanceBody = z
  .strictObject({
    ms: z.number().int().nonnegative().optional(),
    seconds: z.number().int().nonnegative().optional(),
    minutes: z.number().int().nonnegative().optional(),
    hours: z.number().int().nonnegative().optional(),
    days: z.number().int().nonnegative().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give ms, seconds, minutes, hours or days',
  });

/** Registers the inspection and control endpoints. */
export function registerAdmin(page: RegisterPage, deps: AdminDeps): void {
  const {engine, credentials, profile, leniencyLog} = deps;

  page(
    'GET',
    '/favicon.ico',
    () => new Response(null, {status: 204, headers: {'cache-control': 'max-age=86400'}}),
  );
  page(
    'GET',
    '/health',
    () => new Response('OK', {headers: {'content-type': 'text/plain; charset=utf-8'}}),
  );

  page('GET', '/sandbox', () =>
    json(200, {
      name: 'pg-checkout gateway sandbox',
      profile,
      pos_id: credentials.posId,
      endpoints: {
        gateway: Object.fromEntries(
          Object.entries(GATEWAY_ENDPOINTS).map(([k, v]) => [k, `${v.method} ${v.path}`]),
        ),
        admin: ADMIN_ENDPOINTS,
      },
      faults: FAULTS,
      errorCodes: ERROR_CODES,
      statusCodes: SANDBOX_CODES,
      webhookRetryDelaysMs: deps.webhookSchedule,
      registerDefaultFields: REGISTER_DEFAULT_FIELDS,
      leniencyRules: profile === 'live' ? LENIENCY_RULES : {},
    }),
  );
  page('GET', '/sandbox/cards', () => json(200, TEST_CARDS));
  page('GET', '/sandbox/webhooks', () => json(200, deps.webhooks.log()));
  page('DELETE', '/sandbox/webhooks', () => {
    deps.webhooks.clearLog();
    return new Response(null, {status: 204});
  });
  const clockBody = () => ({
    now: deps.clock.now().toISOString(),
    timestamp: deps.clock.now().toISOString().slice(0, 23),
    manual: deps.clock.manual,
    scheduledTasks: deps.clock.pending,
  });
  page('GET', '/sandbox/clock', () => json(200, clockBody()));
  page('POST', '/sandbox/clock/advance', async (c) => {
    const b = validate(AdvanceBody, await readJson(c), 'clock advance');
    const ms =
      (b.ms ?? 0) +
      (b.seconds ?? 0) * 1000 +
      (b.minutes ?? 0) * 60_000 +
      (b.hours ?? 0) * 3_600_000 +
      (b.days ?? 0) * 86_400_000;
    await deps.advance(ms);
    return json(200, clockBody());
  });
  page('GET', '/sandbox/faults', () => json(200, deps.faults.list()));
  page('POST', '/sandbox/faults', async (c) => {
    const rule = validate(FaultRuleInput, await readJson(c), 'fault rule');
    return json(201, {id: deps.faults.add(rule)});
  });
  page('DELETE', '/sandbox/faults', () => {
    deps.faults.clear();
    return new Response(null, {status: 204});
  });
  page('GET', '/sandbox/leniencies', () => json(200, leniencyLog.list()));
  page('DELETE', '/sandbox/leniencies', () => {
    leniencyLog.clear();
    return new Response(null, {status: 204});
  });
  page('GET', '/sandbox/payments', () => json(200, engine.payments()));
  page('GET', '/sandbox/subscriptions', () => json(200, engine.subscriptions()));
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new SandboxError('M-406', 'the body is not valid JSON');
  }
}
