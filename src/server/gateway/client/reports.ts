/**
 * Reports: transactions over a period (one JSON object per line), and registers — start
 * one, fetch it (not ready yet, or its records), and wait for it with backoff on the
 * client's clock until a deadline.
 */
import * as z from 'zod';
import {GatewayUnavailableError, GatewayRequestValidationError} from '../errors.js';
import {
  formatIssues,
  PeriodQuery,
  PeriodTransaction,
  RegisterRecord,
  RegisterRequest,
  RegisterStarted,
  ReportNotReady,
} from '../schemas.js';
import {parseJson, readList, readRecord} from './answers.js';
import {Identifier, validate, type RegisterInput} from './requests.js';
import {backoff, type ClientContext} from './transport.js';

/** The answer to a register fetch: not generated yet, or its records. */
export type RegisterResult =
  {ready: false; message: string} | {ready: true; records: RegisterRecord[]};

/** Options of `GatewayClient.waitForRegister`. */
export interface WaitForRegisterOptions {
  /** Give up after this many ms. Default 120000. */
  deadlineMs?: number;
  /** First wait between fetches, in ms. Default 500. */
  initialDelayMs?: number;
  /** Longest wait between fetches, in ms. Default 10000. */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

const toMillis = (value: Date | number): number =>
  value instanceof Date ? value.getTime() : value;

/** Transactions over a period; see `GatewayClient.getPeriodTransactions`. */
export async function getPeriodTransactions(
  ctx: ClientContext,
  period: {start: Date | number; end: Date | number},
): Promise<PeriodTransaction[]> {
  const query = {startDate: toMillis(period?.start), enddate: toMillis(period?.end)};
  const parsedQuery = PeriodQuery.safeParse(query);
  if (!parsedQuery.success) {
    const names: Record<string, string> = {startDate: 'start', enddate: 'end'};
    throw new GatewayRequestValidationError(
      'period',
      formatIssues(parsedQuery.error, query).map((i) => ({...i, field: names[i.field] ?? i.field})),
    );
  }
  const answer = await ctx.transport.send({
    endpoint: 'getPeriodTransactions',
    params: {posId: ctx.settings.posId},
    query: {
      startDate: String(parsedQuery.data.startDate),
      enddate: String(parsedQuery.data.enddate),
    },
    failure: 'read',
    what: 'period transactions lookup',
  });
  return readList(answer, PeriodTransaction, 'period transactions');
}

/** Starts a register; see `GatewayClient.startRegister`. */
export async function startRegister(
  ctx: ClientContext,
  request: RegisterInput,
): Promise<RegisterStarted> {
  const body = validate('register request', RegisterRequest, {
    project_id: ctx.settings.posId,
    ...request,
  });
  const answer = await ctx.transport.send({
    endpoint: 'startRegister',
    body,
    failure: 'read',
    what: 'register start',
  });
  return readRecord(answer, RegisterStarted, 'register start answer');
}

/** The `report_not_ready` answer, whatever its HTTP status. */
function notReady(body: string): ReportNotReady | undefined {
  const json = parseJson(body);
  const parsed = json.ok ? ReportNotReady.safeParse(json.value) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** Fetches a register; see `GatewayClient.fetchRegister`. */
export async function fetchRegister(ctx: ClientContext, reportId: string): Promise<RegisterResult> {
  validate('register fetch', z.strictObject({reportId: Identifier}), {reportId});
  const answer = await ctx.transport.send(
    {endpoint: 'fetchRegister', params: {reportId}, failure: 'read', what: 'register fetch'},
    undefined,
    function reportNotReady(a) {
      return notReady(a.body) !== undefined;
    },
  );
  const waiting = notReady(answer.body);
  if (waiting) return {ready: false, message: waiting.message};
  return {ready: true, records: readList(answer, RegisterRecord, 'register')};
}

/** Fetches a register until it is ready; see `GatewayClient.waitForRegister`. */
export async function waitForRegister(
  ctx: ClientContext,
  reportId: string,
  options: WaitForRegisterOptions = {},
): Promise<RegisterRecord[]> {
  const {clock} = ctx.settings;
  const {deadlineMs = 120_000, initialDelayMs = 500, maxDelayMs = 10_000, signal} = options;
  const deadline = clock.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    const result = await fetchRegister(ctx, reportId);
    if (result.ready) return result.records;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new GatewayUnavailableError(
        'gateway_unavailable',
        `the register was not ready within ${deadlineMs} ms; fetch it again later`,
      );
    }
    await clock.sleep(Math.min(left, backoff(attempt, initialDelayMs, maxDelayMs)), signal);
  }
}
