/**
 * What runs on the chosen answer: the cache store (a JSON answer at once, a stream once it has ended) and the
 * output guardrails of a stream (at its end, before `data: [DONE]`). A JSON answer was judged before it was
 * chosen; it is stored only when its guardrails passed.
 */
import type { CacheStep } from '../../cache/semantic-pipeline.ts';
import type { ResponseCache } from '../../cache/response-cache.ts';
import type { CacheForm } from '../../cache/cache-form.ts';
import type { GuardrailHook } from '../../guardrails/hooks.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import { noteOutputVerdicts, type RequestRecord } from '../../logging/request-record.ts';
import type { Outcome, StreamEnd } from '../outcome.ts';
import type { Answer } from '../read-answer.ts';
import { storer } from './cache-store.ts';
import { judgeStreamEnd, type OutputVerdict } from './output-guardrails.ts';

export interface Chosen extends Omit<Outcome, 'answer' | 'output' | 'streamEnd' | 'cacheStatus' | 'warnings'> {
  answer: Answer;
  verdict: OutputVerdict | undefined;
  cache: CacheStep | undefined;
  outputHooks: readonly GuardrailHook[];
  metadata: Record<string, unknown>;
  clientGone: { signal: AbortSignal };
}

export interface FinishDeps {
  responses: ResponseCache;
  checks: CheckRegistry;
  /** how the route's answers are stored (a Message, a Response); the canonical answer when unset */
  cacheForm?: CacheForm | undefined;
}

export interface FinishIo {
  record: RequestRecord | undefined;
  onStoreError: (error: unknown) => void;
}

export function finishChosen(chosen: Chosen, deps: FinishDeps, io: FinishIo): Outcome {
  const { answer, cache, verdict } = chosen;
  const succeeded = answer.status < 300 && (verdict === undefined || verdict.status === 200);
  const store = cache && succeeded ? storer(deps.responses, cache.plan, io.onStoreError, chosen.call, deps.cacheForm) : undefined;
  if (store && answer.kind === 'json') store.json(answer.status, answer);
  let streamEnd: StreamEnd | undefined;
  if (answer.kind === 'stream' && (chosen.outputHooks.length > 0 || store)) {
    const context = { hooks: chosen.outputHooks, call: chosen.call, metadata: chosen.metadata, signal: chosen.clientGone.signal, checks: deps.checks };
    streamEnd = async ({ text, chunks }) => {
      if (chosen.outputHooks.length > 0) {
        const { verdict: ended, stop } = await judgeStreamEnd(text, context);
        noteOutputVerdicts(io.record, ended.outcome.results);
        if (stop) return stop;
      }
      store?.stream(chunks);
      return undefined;
    };
  }
  const warnings = cache && cache.warnings.length > 0 ? [...answer.attempt.request.warnings, ...cache.warnings] : answer.attempt.request.warnings;
  return {
    answer,
    adapter: chosen.adapter,
    target: chosen.target,
    call: chosen.call,
    optionPath: chosen.optionPath,
    savedConfig: chosen.savedConfig,
    savedProvider: chosen.savedProvider,
    retries: chosen.retries,
    timeoutMs: chosen.timeoutMs,
    // an error answer is never stored: it reports the cache as it was looked up
    cacheStatus: cache?.status ?? 'DISABLED',
    warnings,
    input: chosen.input,
    output: verdict,
    streamEnd,
  };
}
