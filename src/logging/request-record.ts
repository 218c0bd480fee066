/**
 * What the request log learns about one request while it runs. The request-log hook creates the record when an
 * inference request arrives; the pipeline fills it as it goes (its log-record step: the outcome; the stream writers:
 * a stream's usage, errors written into it; the error handler: the error the client got); the hook turns
 * it into a row once the answer has ended. Filling it is a few property writes: nothing is re-run or re-parsed for
 * the log's sake beyond a relayed stream's last bytes. Every helper accepts `undefined` (routes without a log).
 */
import type { HookResult } from '../guardrails/hooks.ts';
import { usageInStreamTail, usageOf, type TokenUsage } from './usage.ts';

export interface LoggedError {
  message: string;
  type: string | null;
  code: string | null;
}

export interface RequestRecord {
  /** ms since the epoch when the request arrived */
  readonly startedAt: number;
  route: string | undefined;
  provider: string | undefined;
  /** the model sent to the provider (after override_params) */
  model: string | undefined;
  /** the model the answer names, for requests that name none */
  answerModel: string | undefined;
  /** the answer went out as a stream */
  streamed: boolean;
  cacheStatus: string | undefined;
  retries: number;
  optionPath: string | undefined;
  configId: string | undefined;
  configVersionId: string | undefined;
  usage: TokenUsage | undefined;
  inputVerdicts: readonly HookResult[] | undefined;
  outputVerdicts: readonly HookResult[] | undefined;
  error: LoggedError | undefined;
}

export function newRequestRecord(startedAt: number, route: string | undefined): RequestRecord {
  return {
    startedAt,
    route,
    provider: undefined,
    model: undefined,
    answerModel: undefined,
    streamed: false,
    cacheStatus: undefined,
    retries: 0,
    optionPath: undefined,
    configId: undefined,
    configVersionId: undefined,
    usage: undefined,
    inputVerdicts: undefined,
    outputVerdicts: undefined,
    error: undefined,
  };
}

function stringField(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : undefined;
}

/** One canonical stream chunk: the final one carries the usage when the client asked for it. */
export function noteChunk(record: RequestRecord | undefined, chunk: unknown): void {
  if (!record || typeof chunk !== 'object' || chunk === null) return;
  const usage = (chunk as { usage?: unknown }).usage;
  if (usage) record.usage = usageOf(usage) ?? record.usage;
  record.answerModel ??= stringField(chunk, 'model');
}

/** The end of a relayed stream, its last two chunks as received. */
export function noteStreamTail(record: RequestRecord | undefined, previous: Buffer | undefined, last: Buffer | undefined): void {
  if (record) record.usage = usageInStreamTail(previous, last) ?? record.usage;
}

export function noteStreamed(record: RequestRecord | undefined): void {
  if (record) record.streamed = true;
}

export function noteOutputVerdicts(record: RequestRecord | undefined, results: readonly HookResult[]): void {
  if (record && results.length > 0) record.outputVerdicts = results;
}

function verdicts(value: unknown): readonly HookResult[] | undefined {
  return Array.isArray(value) && value.length > 0 ? (value as HookResult[]) : undefined;
}

/**
 * An error body as the client got it (`{error: {message, type, code}}`, plus `hook_results` for a guardrail
 * denial). The first error noted wins: later ones are consequences (a stream's error event, then its close).
 */
export function noteErrorBody(record: RequestRecord | undefined, body: unknown): void {
  if (!record || record.error || typeof body !== 'object' || body === null) return;
  const inner = (body as { error?: unknown }).error;
  const message = stringField(inner, 'message');
  if (message === undefined) return;
  record.error = { message, type: stringField(inner, 'type') ?? null, code: stringField(inner, 'code') ?? null };
  const hooks = (body as { hook_results?: unknown }).hook_results;
  if (typeof hooks === 'object' && hooks !== null) {
    const { before_request_hooks: before, after_request_hooks: after } = hooks as Record<string, unknown>;
    record.inputVerdicts ??= verdicts(before);
    record.outputVerdicts ??= verdicts(after);
  }
}
