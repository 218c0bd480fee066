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
import type { TargetDeps } from './resolve-target.ts';
import { destinationFor } from './provider-reference.ts';
import { noteSavedProvider, resolveAttemptTarget, type SavedProviderDeps } from './saved-provider-target.ts';
import { guardrailDenied, GUARDRAIL_DENIED_STATUS } from '../guardrails/hooks.ts';
import type { RequestRecord } from '../logging/request-record.ts';
import { withBody, type InferenceCall } from '../core/inference-call.ts';
import { nextAttempt, type Attempt, type Plan } from '../routing/planner.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { Outcome } from './outcome.ts';
import { planRequest, type PlanDeps, type RequestPlan } from './request-plan.ts';
import { lookupAttemptCache, type CacheLookupDeps } from './steps/cache-lookup.ts';
import { finishChosen, type FinishDeps } from './steps/finish.ts';
import { guardInput, targetHooks, type GuardDeps } from './steps/input-guardrails.ts';
import { noteAttempt, noteOutcome } from './steps/log-record.ts';
import { noteResponse } from '../logging/request-record.ts';
import { callWithRetries } from './steps/upstream-call.ts';
import { noteEmbeddingCost, noteLeftAttempt, notePrice, type CostDeps } from './steps/cost.ts';
import { requestRateLimits, type RateLimitDeps, type RequestRateLimits } from './steps/rate-limits.ts';
import type { LimitError } from '../limits/limit-error.ts';
import { requestBudgets, type AttemptBudget, type BudgetAttempt, type BudgetDeps, type RequestBudgets } from './steps/budgets.ts';

export interface PipelineDeps extends TargetDeps, SavedProviderDeps, Omit<PlanDeps, 'random'>, GuardDeps, CacheLookupDeps, RateLimitDeps, CostDeps, BudgetDeps, Pick<FinishDeps, 'cacheForm'> {
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

/** A target's forward_headers replace the request's list, never the route's protocol headers (the Messages API's). */
function withProtocolHeaders(names: readonly string[], protocol: readonly string[] | undefined): readonly string[] {
  const missing = protocol?.filter((name) => !names.includes(name)) ?? [];
  return missing.length === 0 ? names : [...names, ...missing];
}

/** The request as one attempt sends it: the attempt's destination and settings over the request's own. */
export function headersFor(headers: GatewayHeaders, attempt: Attempt): GatewayHeaders {
  const target = attempt.target;
  const sameProvider = target.provider === undefined || target.provider === headers.provider;
  return {
    ...headers,
    config: undefined,
    ...destinationFor(headers, target, attempt.path),
    customHost: target.customHost ?? (sameProvider ? headers.customHost : undefined),
    providerToken: target.apiKey ?? headers.providerToken,
    cloud: { ...(sameProvider ? headers.cloud : {}), ...target.cloud },
    requestTimeoutMs: headers.requestTimeoutMs ?? target.requestTimeoutMs,
    forwardHeaders: target.forwardHeaders ? withProtocolHeaders(target.forwardHeaders, headers.protocolHeaders) : headers.forwardHeaders,
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

/** What every attempt of one request shares. */
interface RequestState {
  base: InferenceCall;
  headers: GatewayHeaders;
  io: PipelineIo;
  deps: PipelineDeps;
  random: () => number;
  requestPlan: RequestPlan;
  rateLimits: RequestRateLimits;
  budgets: RequestBudgets;
}

/** One attempt's end: the outcome to answer with, or the attempt a fallback moves on to. */
type AttemptEnd = { outcome: Outcome; next?: undefined } | { outcome?: undefined; next: number };

/**
 * The loop over the plan is small on purpose: the work of one attempt is `runAttempt`, so each stays a function
 * V8 optimises on its own (a deoptimisation of one does not send the whole request back to the interpreter).
 */
export async function runPipeline(base: InferenceCall, headers: GatewayHeaders, io: PipelineIo, deps: PipelineDeps): Promise<Outcome> {
  const random = deps.random ?? Math.random;
  // deps are passed as they are: spreading the dependency object per request costs an allocation and a copy
  const requestPlan = await planRequest(headers, base.body, io.principal, deps, random);
  if (io.record) {
    io.record.mode = requestPlan.plan.mode;
    if (requestPlan.workspace.logBodies === false) io.record.logBodies = false;
  }
  const state: RequestState = {
    base,
    headers,
    io,
    deps,
    random,
    requestPlan,
    rateLimits: requestRateLimits(io.principal, requestPlan.workspace, headers.metadata, deps),
    budgets: requestBudgets(io.principal, headers, io.record, deps),
  };
  let index = 0;
  for (;;) {
    const end = await runAttempt(state, index);
    if (end.outcome) return end.outcome;
    index = end.next;
  }
}

/** The attempt a failure moves on to, or the failure thrown when no fallback takes it. */
function fallBack(plan: Plan, index: number, failure: number, error: Error): AttemptEnd {
  const next = nextAttempt(plan, index, failure);
  if (next === undefined) throw error;
  return { next };
}

/**
 * The rate limits' verdict, with the budgets' reservation made beside it (when the attempt consults no cache first):
 * with Redis each is a round trip to the counter store, and asked for together they overlap instead of following one
 * another. The rate limits' refusal still comes first, as when the two are asked in turn; a reservation made for an
 * attempt they refuse is given back at once. docs/decisions.md, "Rate limits and budgets asked for together".
 */
async function besideReservation(checking: Promise<LimitError | undefined>, reserving: Promise<AttemptBudget> | undefined): Promise<LimitError | undefined> {
  // handled now: a reservation that fails while the verdict is awaited is not an unhandled rejection (it is
  // awaited, and thrown, when the attempt goes on)
  reserving?.catch(() => undefined);
  let limited: LimitError | undefined;
  try {
    limited = await checking;
  } catch (error) {
    giveBack(reserving);
    throw error;
  }
  if (limited) giveBack(reserving);
  return limited;
}

function giveBack(reserving: Promise<AttemptBudget> | undefined): void {
  reserving?.then((budget) => budget.release(), () => undefined);
}

async function runAttempt(state: RequestState, index: number): Promise<AttemptEnd> {
  const { base, headers, io, deps, requestPlan } = state;
  const { plan, workspace, savedConfig } = requestPlan;
  const attempt: Attempt = plan.attempts[index]!;
  const attemptHeaders = requestPlan.configured ? headersFor(headers, attempt) : headers;
  const guarding = guardInput(
    callFor(base, attempt),
    {
      input: targetHooks(attempt.target.inputGuardrails, attempt.target.beforeRequestHooks),
      output: targetHooks(attempt.target.outputGuardrails, attempt.target.afterRequestHooks),
      path: attempt.path,
      workspace,
      headers,
      principal: io.principal,
      clientGone: io.clientGone,
    },
    deps,
  );
  const guarded = guarding instanceof Promise ? await guarding : guarding;
  if (guarded.status !== 200) {
    // an input verdict does not change on a retry: only a fallback can do something about it
    const next = nextAttempt(plan, index, guarded.status);
    if (next !== undefined) return { next };
    if (guarded.status === GUARDRAIL_DENIED_STATUS) throw guardrailDenied('input', guarded.input);
  }
  const { adapter, target, call, savedProvider } = await resolveAttemptTarget(attemptHeaders, guarded.call, io.principal, deps);
  noteAttempt(io.record, adapter.name, call.body);
  noteSavedProvider(io.record, savedProvider);
  const budgetAttempt: BudgetAttempt = { call, provider: adapter.name, providerSlug: attemptHeaders.providerSlug, savedProvider };
  // usage limits: an estimate reserved in every budget before the call, settled from its answer (steps/budgets.ts).
  // An attempt without a cache to consult first asks for it beside the rate limits' verdict (overlapped).
  const reserving = attempt.target.cache ? undefined : state.budgets.reserve(budgetAttempt);
  // before anything reaches a provider (the semantic cache's embedding call included); a refusal may fall back
  const limited = await besideReservation(state.rateLimits.check({ provider: adapter.name, providerSlug: attemptHeaders.providerSlug, providerRecord: savedProvider }), reserving);
  if (limited) return fallBack(plan, index, limited.status, limited);
  // the embedding call's cost joins the request's and is charged to its budgets
  const onEmbedded = attempt.target.cache && (async (spend: Parameters<typeof noteEmbeddingCost>[1]) => {
    await noteEmbeddingCost(io.record, spend, io.principal, deps);
    await state.budgets.chargeEmbedding(budgetAttempt, spend);
  });
  const cache = attempt.target.cache && (await lookupAttemptCache(attempt.target.cache, { call, provider: adapter.name, headers: attemptHeaders, clientGone: io.clientGone }, deps, onEmbedded));
  const optionPath = requestPlan.configured ? attempt.path : undefined;
  const timeoutMs = attemptHeaders.requestTimeoutMs;
  if (cache?.cached) {
    // fields written out, not spread: an object spread here was most of this function's time in a CPU profile
    const outcome: Outcome = {
      answer: { kind: 'cached', cached: cache.cached },
      adapter,
      target,
      call,
      optionPath,
      savedConfig,
      savedProvider,
      retries: 0,
      timeoutMs,
      cacheStatus: cache.status,
      warnings: cache.warnings,
      input: guarded.input,
      output: undefined,
      streamEnd: undefined,
    };
    noteOutcome(io.record, outcome);
    noteResponse(io.record, { kind: 'text', text: cache.cached.body });
    await notePrice(io.record, outcome, io.principal, deps);
    return { outcome };
  }
  const budget = await (reserving ?? state.budgets.reserve(budgetAttempt));
  if (budget.refused) return fallBack(plan, index, budget.refused.status, budget.refused);
  const options: UpstreamCallOptions = { headers: attemptHeaders, clientHeaders: io.clientHeaders, clientGone: io.clientGone, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) };
  const tried = await budget.track(callWithRetries(
    { adapter, target, call, retry: attempt.target.retry, outputHooks: guarded.output, collectsStream: guarded.output.length > 0 || cache !== undefined, metadata: headers.metadata, options, record: io.record, path: requestPlan.configured ? attempt.path : null },
    { upstream: deps.upstream, checks: deps.checks, random: state.random },
  ));
  const { answer, status } = tried;
  for (const left of tried.dropped ?? []) await noteLeftAttempt(io.record, { provider: adapter.name, body: call.body, answer: left }, io.principal, deps);
  const failed = status === undefined || status >= 300 || tried.guardrailFailed;
  const next: number | undefined = failed ? nextAttempt(plan, index, status ?? 'network') : undefined;
  if (next !== undefined) {
    await noteLeftAttempt(io.record, { provider: adapter.name, body: call.body, answer }, io.principal, deps);
    answer?.attempt.done();
    return { next };
  }
  if (!answer) throw tried.failure;
  const outcome = finishChosen(
    {
      adapter,
      target,
      call,
      optionPath,
      savedConfig,
      savedProvider,
      timeoutMs,
      input: guarded.input,
      answer,
      verdict: tried.verdict,
      retries: tried.retries,
      cache,
      outputHooks: guarded.output,
      metadata: headers.metadata,
      clientGone: io.clientGone,
    },
    deps,
    io,
  );
  state.rateLimits.countTokens(outcome.answer, io.record);
  noteOutcome(io.record, outcome);
  await notePrice(io.record, outcome, io.principal, deps);
  return { outcome };
}
