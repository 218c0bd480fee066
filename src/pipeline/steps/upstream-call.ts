/**
 * The upstream call of one attempt, with its retries: send, read the answer once (read-answer.ts), judge a JSON
 * answer's output guardrails, and retry while the outcome is one the target's `retry` names. A stream is never
 * retried once it has been handed on: it is returned unread.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { callUpstream, type UpstreamCallOptions } from '../call-upstream.ts';
import { GatewayError } from '../../core/errors.ts';
import type { GuardrailHook } from '../../guardrails/hooks.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget } from '../../providers/contract.ts';
import { isRetryableStatus, retryDelayMs } from '../../routing/retry.ts';
import type { PlannedRetry } from '../../routing/target-settings.ts';
import type { UpstreamClient } from '../../upstream/client.ts';
import { readAnswer, type Answer } from '../read-answer.ts';
import { judgeOutput, type OutputVerdict } from './output-guardrails.ts';
import { noteTry, type AttemptLog, type RequestRecord } from '../../logging/request-record.ts';

const NO_RETRY: PlannedRetry = { attempts: 0, onStatusCodes: undefined, useRetryAfterHeader: false };

export interface AttemptCall {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  call: InferenceCall;
  retry: PlannedRetry | undefined;
  /** the output hooks judged on a JSON answer */
  outputHooks: readonly GuardrailHook[];
  /** an OpenAI stream must be decoded (its end is checked or stored) */
  collectsStream: boolean;
  metadata: Record<string, unknown>;
  options: UpstreamCallOptions;
  /** the request log's record (each try is noted in it) and the config path of the attempt */
  record: RequestRecord | undefined;
  path: string | null;
}

export interface AttemptDeps {
  upstream: UpstreamClient;
  checks: CheckRegistry;
  random: () => number;
}

export interface AttemptResult {
  /** the last answer; undefined when the last try failed without one (no connection, a timeout) */
  answer: Answer | undefined;
  verdict: OutputVerdict | undefined;
  /** the error of a last try that had no answer */
  failure: unknown;
  retries: number;
  /** the status that decides retries and fallbacks: a guardrail's (246, 446) over the provider's; undefined for no answer */
  status: number | undefined;
  /** a guardrail failed the answer */
  guardrailFailed: boolean;
  /** answers a retry left behind (paid for all the same: the cost step adds what they used) */
  dropped?: Answer[];
}

/** A failure that moves on to a retry or a fallback: no connection, a timeout. Anything else is final. */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof GatewayError && (error.status === 408 || error.code === 'upstream_unreachable');
}

export async function callWithRetries(attempt: AttemptCall, deps: AttemptDeps): Promise<AttemptResult> {
  const { adapter, target, call, options } = attempt;
  const retry = attempt.retry ?? NO_RETRY;
  const timeoutMs = options.headers.requestTimeoutMs;
  let retries = 0;
  const dropped: Answer[] = [];
  for (;;) {
    let answer: Answer | undefined;
    let verdict: OutputVerdict | undefined;
    let failure: unknown;
    const startedAt = attempt.record ? Date.now() : 0;
    try {
      const sent = await callUpstream(deps.upstream, adapter, target, call, options);
      answer = await readAnswer(sent, { adapter, target, call, timeoutMs, collectsStream: attempt.collectsStream });
      if (answer.kind === 'json' && attempt.outputHooks.length > 0) {
        verdict = await judgeOutput(answer.canonical, { hooks: attempt.outputHooks, call, metadata: attempt.metadata, signal: options.clientGone.signal, checks: deps.checks });
      }
    } catch (error) {
      // a timeout while the answer is read is a failure like any other
      answer?.attempt.done();
      answer = undefined;
      verdict = undefined;
      if (!isNetworkFailure(error)) {
        if (attempt.record) logTry(attempt, retries, undefined, undefined, error, startedAt);
        throw error;
      }
      failure = error;
    }
    const guardrailFailed = verdict !== undefined && verdict.status !== 200;
    const status = guardrailFailed ? verdict!.status : answer?.status;
    if (attempt.record) logTry(attempt, retries, answer, guardrailFailed ? verdict : undefined, failure, startedAt);
    const retryable = status === undefined || ((status >= 300 || guardrailFailed) && isRetryableStatus(retry, status));
    if (!retryable || retries >= retry.attempts || options.clientGone.aborted) {
      return { answer, verdict, failure, retries, status, guardrailFailed, dropped };
    }
    const wait = retryDelayMs(retry, retries, answer?.attempt.response.headers, deps.random, Date.now());
    answer?.attempt.done();
    if (answer) dropped.push(answer);
    retries += 1;
    await sleep(wait, undefined, { signal: options.clientGone.signal }).catch(() => {});
  }
}

function errorOfBody(body: unknown): AttemptLog['error'] {
  const inner = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const fields = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
  const message = typeof fields.message === 'string' ? fields.message.slice(0, 500) : 'The provider answered with an error.';
  return { type: typeof fields.type === 'string' ? fields.type : 'provider_error', message };
}

/** One try in the request log: where it went, what came back, how long it took. */
function logTry(attempt: AttemptCall, retry: number, answer: Answer | undefined, failedVerdict: OutputVerdict | undefined, failure: unknown, startedAt: number): void {
  const record = attempt.record!;
  const endedAt = Date.now();
  record.upstreamEndAt = endedAt;
  const model = attempt.call.body && typeof attempt.call.body === 'object' ? (attempt.call.body as { model?: unknown }).model : undefined;
  let status: number | null = answer?.status ?? null;
  let error: AttemptLog['error'] = null;
  if (!answer) {
    const gateway = failure instanceof GatewayError ? failure : undefined;
    status = gateway?.status ?? null;
    error = { type: gateway?.code ?? 'error', message: failure instanceof Error ? failure.message.slice(0, 500) : String(failure) };
  } else if (answer.kind === 'provider-error') {
    error = errorOfBody(answer.body);
  } else if (failedVerdict) {
    status = failedVerdict.status;
    error = { type: 'guardrail_failed', message: 'An output guardrail failed the answer.' };
  }
  noteTry(record, { path: attempt.path, provider: attempt.adapter.name, model: typeof model === 'string' ? model : null, status, error, retry }, startedAt, endedAt);
}
