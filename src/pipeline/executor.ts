/**
 * The request pipeline: one composed executor over a plan of attempts. Each step is a file of its own:
 *
 *   request-plan (auth context: workspace defaults, config -> attempts)
 *   -> per attempt: input-guardrails -> resolve target -> cache-lookup -> upstream-call (retries; the answer read
 *      once; a JSON answer's output-guardrails) -> fallback or choose
 *   -> cache-store, usage and the log record on the chosen answer.
 *
 * A request without a config is a plan of one attempt and takes the same path. The chosen answer is returned to
 * the transport, which only writes it out; a stream is judged and stored at its end through `streamEnd`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AbortLink } from '../core/abort-link.ts';
import type { UpstreamCallOptions } from './call-upstream.ts';
import type { GatewayHeaders, Principal } from '../core/context.ts';
import { notImplemented } from '../core/errors.ts';
import { resolveTarget, type TargetDeps } from './resolve-target.ts';
import { guardrailDenied, GUARDRAIL_DENIED_STATUS } from '../guardrails/hooks.ts';
import type { RequestRecord } from '../logging/request-record.ts';
import { withBody, type InferenceCall } from '../core/inference-call.ts';
import { nextAttempt, type Attempt } from '../routing/planner.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { Outcome } from './outcome.ts';
import { planRequest, type PlanDeps } from './request-plan.ts';
import { lookupAttemptCache, type CacheLookupDeps } from './steps/cache-lookup.ts';
import { finishChosen } from './steps/finish.ts';
import { guardInput, targetHooks, type GuardDeps } from './steps/input-guardrails.ts';
import { noteAttempt, noteOutcome } from './steps/log-record.ts';
import { callWithRetries } from './steps/upstream-call.ts';

export interface PipelineDeps extends TargetDeps, Omit<PlanDeps, 'random'>, GuardDeps, CacheLookupDeps {
  upstream: UpstreamClient;
  /** the loadbalance draw and retry jitter; Math.random unless a test pins it */
  random?: () => number;
}

export interface PipelineIo {
  clientHeaders: IncomingHttpHeaders;
  /** aborts when the client disconnects */
  clientGone: AbortLink;
  principal: Principal | undefined;
  /** the request log's record: the pipeline notes what it did in it */
  record: RequestRecord | undefined;
  /** a failed cache write, reported off the request's path */
  onStoreError: (error: unknown) => void;
}

/** The request as one attempt sends it: the attempt's destination and settings over the request's own. */
function headersFor(headers: GatewayHeaders, attempt: Attempt): GatewayHeaders {
  const target = attempt.target;
  const sameProvider = target.provider === undefined || target.provider === headers.provider;
  return {
    ...headers,
    config: undefined,
    provider: target.provider ?? headers.provider,
    providerSlug: target.provider ? undefined : headers.providerSlug,
    virtualKey: target.virtualKey,
    customHost: target.customHost ?? (sameProvider ? headers.customHost : undefined),
    providerToken: target.apiKey ?? headers.providerToken,
    cloud: { ...(sameProvider ? headers.cloud : {}), ...target.cloud },
    requestTimeoutMs: headers.requestTimeoutMs ?? target.requestTimeoutMs,
    forwardHeaders: target.forwardHeaders ?? headers.forwardHeaders,
  };
}

function callFor(base: InferenceCall, attempt: Attempt): InferenceCall {
  const overrides = attempt.target.overrideParams;
  // strict_open_ai_compliance: the compatible gateway's name for the same switch
  const strict = attempt.target.strictReferenceCompliance ?? attempt.target.strictOpenAiCompliance ?? base.strictReferenceCompliance;
  if (Object.keys(overrides).length === 0 || typeof base.body !== 'object' || base.body === null) {
    return strict === base.strictReferenceCompliance ? base : { ...base, strictReferenceCompliance: strict };
  }
  return { ...withBody(base, { ...(base.body as Record<string, unknown>), ...overrides }), strictReferenceCompliance: strict };
}

export async function runPipeline(base: InferenceCall, headers: GatewayHeaders, io: PipelineIo, deps: PipelineDeps): Promise<Outcome> {
  const random = deps.random ?? Math.random;
  const requestPlan = await planRequest(headers, base.body, io.principal, { ...deps, random });
  const { plan, workspace, savedConfig } = requestPlan;
  let index: number | undefined = 0;
  while (index !== undefined) {
    const attempt: Attempt = plan.attempts[index]!;
    if (attempt.target.virtualKey) {
      throw notImplemented('Virtual keys in configs are not available in this version yet.', 'virtual_key_not_supported');
    }
    const attemptHeaders = requestPlan.configured ? headersFor(headers, attempt) : headers;
    const guarded = await guardInput(
      callFor(base, attempt),
      {
        input: targetHooks(attempt.target.inputGuardrails, attempt.target.beforeRequestHooks),
        output: targetHooks(attempt.target.outputGuardrails, attempt.target.afterRequestHooks),
        path: attempt.path,         workspace,
        headers,
        principal: io.principal,
        clientGone: io.clientGone,
      },
      deps,
    );
    if (guarded.status !== 200) {
      // an input verdict does not change on a retry: only a fallback can do something about it
      const next = nextAttempt(plan, index, guarded.status);
      if (next !== undefined) {
        index = next;
        continue;
      }
      if (guarded.status === GUARDRAIL_DENIED_STATUS) throw guardrailDenied('input', guarded.input);
    }
    const { call } = guarded;
    const { adapter, target } = await resolveTarget(attemptHeaders, call.route, deps);
    noteAttempt(io.record, adapter.name, call.body);
    const cache = await lookupAttemptCache(attempt.target.cache, { call, provider: adapter.name, headers: attemptHeaders, clientGone: io.clientGone }, deps);
    const chosen = {
      adapter,
      target,
      call,
      optionPath: requestPlan.configured ? attempt.path : undefined,
      savedConfig,
      timeoutMs: attemptHeaders.requestTimeoutMs,
      input: guarded.input,
    };
    if (cache?.cached) {
      const outcome: Outcome = { ...chosen, answer: { kind: 'cached', cached: cache.cached }, retries: 0, cacheStatus: cache.status, warnings: cache.warnings, output: undefined, streamEnd: undefined };
      noteOutcome(io.record, outcome);
      return outcome;
    }
    const options: UpstreamCallOptions = { headers: attemptHeaders, clientHeaders: io.clientHeaders, clientGone: io.clientGone, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) };
    const tried = await callWithRetries(
      { adapter, target, call, retry: attempt.target.retry, outputHooks: guarded.output, collectsStream: guarded.output.length > 0 || cache !== undefined, metadata: headers.metadata, options },
      { upstream: deps.upstream, checks: deps.checks, random },
    );
    const { answer, status } = tried;
    const failed = status === undefined || status >= 300 || tried.guardrailFailed;
    const next: number | undefined = failed ? nextAttempt(plan, index, status ?? 'network') : undefined;
    if (next !== undefined) {
      answer?.attempt.done();
      index = next;
      continue;
    }
    if (!answer) throw tried.failure;
    const outcome = finishChosen({ ...chosen, answer, verdict: tried.verdict, retries: tried.retries, cache, outputHooks: guarded.output, metadata: headers.metadata, clientGone: io.clientGone }, { ...deps, record: io.record, onStoreError: io.onStoreError });
    noteOutcome(io.record, outcome);
    return outcome;
  }
  throw new Error('unreachable: the plan always has an attempt');
}
