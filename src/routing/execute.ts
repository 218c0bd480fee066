/**
 * The executor: runs one request through its plan. Without a config: one attempt at the target the headers
 * name. With a config: each planned attempt with its own target, override_params, timeout and retries, moving
 * to the next attempt when a fallback is triggered. The answer chosen is returned unread, so a stream is never
 * retried once it has started reaching the client (the caller renders it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { callUpstream, type UpstreamAttempt } from '../core/call-upstream.ts';
import type { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders, Principal } from '../core/context.ts';
import { GatewayError, notImplemented } from '../core/errors.ts';
import { resolveTarget, type TargetDeps } from '../core/resolve-target.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget } from '../providers/contract.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { guardrailDenied, GUARDRAIL_DENIED_STATUS, type GuardrailHook, type HookResult } from '../guardrails/hooks.ts';
import type { SavedGuardrails } from '../guardrails/saved.ts';
import type { CheckRegistry } from '../guardrails/registry.ts';
import type { CachePlan, CacheStatus } from '../cache/pipeline.ts';
import { lookupCache } from '../cache/semantic-pipeline.ts';
import type { SemanticCaches } from '../cache/semantic/semantic-caches.ts';
import type { CachedAnswer, ResponseCache } from '../cache/response-cache.ts';
import { configForRequest, type SavedConfigs } from './saved-configs.ts';
import { guardInput, judgeAnswer, judgesOutput, type JudgedAnswer } from './guard.ts';
import { NO_WORKSPACE_DEFAULTS, type WorkspaceDefaultsLookup, type WorkspaceRequestDefaults } from './workspace-defaults.ts';
import { nextAttempt, plan, type Attempt } from './planner.ts';
import { isRetryableStatus, retryDelayMs } from './retry.ts';

export interface ExecuteDeps extends TargetDeps {
  upstream: UpstreamClient;
  random?: () => number;
  /** the guardrail checks; needed only when a config names guardrails */
  checks?: CheckRegistry;
  /** saved guardrails by id or slug (configs may name them) */
  savedGuardrails?: SavedGuardrails;
  /** saved configs by id or slug (x-gateway-config), held in process */
  savedConfigs?: SavedConfigs;
  /** the workspace's default guardrails, held in process */
  workspaceDefaults?: WorkspaceDefaultsLookup;
  /** the response cache; configs with `cache` use it */
  responses?: ResponseCache;
  /** the semantic caches; targets with `cache.mode: semantic` and an embedding target use them */
  semantic?: SemanticCaches;
}

export interface Execution {
  /** the upstream answer; undefined when the answer came from the cache */
  attempt: UpstreamAttempt | undefined;
  /** a cached answer (cacheStatus HIT) */
  cached?: CachedAnswer;
  /** where to store this answer, when the target caches */
  cache?: CachePlan;
  cacheStatus: CacheStatus;
  /** the cache's notes for x-gateway-warnings (a semantic cache that could not embed) */
  cacheWarnings?: readonly string[];
  adapter: ProviderAdapter;
  target: ProviderTarget;
  call: InferenceCall;
  /** the config path of the target that answered (x-gateway-last-used-option-index); undefined without a config */
  optionPath: string | undefined;
  /** the saved config the request ran under (named in x-gateway-config, or a key or workspace default) and its version, for the request log */
  savedConfig?: { id: string; versionId: string } | undefined;
  /** retries made on the target that answered */
  retries: number;
  timeoutMs: number | undefined;
  /**
   * verdicts of the input guardrails that ran, and the output guardrails to run on the answer; `judged` when the
   * executor already read and checked a non-streaming answer (the renderer then neither reads nor checks again)
   */
  guardrails: { input: HookResult[]; output: GuardrailHook[]; judged?: JudgedAnswer | undefined };
}

interface Io {
  clientHeaders: IncomingHttpHeaders;
  /** aborts when the client disconnects */
  clientGone: AbortLink;
  /** who is calling: saved guardrails are looked up in their organisation and workspace */
  principal?: Principal | undefined;
}

/** A failure that moves on to a retry or a fallback: no connection, a timeout. Anything else is final. */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof GatewayError && (error.status === 408 || error.code === 'upstream_unreachable');
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
  const strict = attempt.target.strictReferenceCompliance ?? base.strictReferenceCompliance;
  if (Object.keys(overrides).length === 0 || typeof base.body !== 'object' || base.body === null) {
    return { ...base, strictReferenceCompliance: strict };
  }
  const body = { ...(base.body as Record<string, unknown>), ...overrides };
  return { ...base, body, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', strictReferenceCompliance: strict };
}

const NO_GUARDRAILS = { input: [], output: [] };

/** A request without a config: one attempt at the target its headers name, under the workspace's guardrails. */
async function single(base: InferenceCall, headers: GatewayHeaders, io: Io, deps: ExecuteDeps, workspace: WorkspaceRequestDefaults): Promise<Execution> {
  let call = base;
  let guardrails: Execution['guardrails'] = NO_GUARDRAILS;
  if (workspace !== NO_WORKSPACE_DEFAULTS) {
    const guarded = await guardInput(base, { input: undefined, output: undefined, path: 'request', workspace, headers, principal: io.principal, clientGone: io.clientGone }, deps);
    if (guarded.status === GUARDRAIL_DENIED_STATUS) throw guardrailDenied('input', guarded.input);
    call = guarded.call;
    guardrails = { input: guarded.input, output: guarded.output };
  }
  const { adapter, target } = await resolveTarget(headers, call.route, deps);
  const attempt = await callUpstream(deps.upstream, adapter, target, call, { headers, ...io, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  return { attempt, adapter, target, call, optionPath: undefined, retries: 0, timeoutMs: headers.requestTimeoutMs, guardrails, cacheStatus: 'DISABLED' };
}

export async function execute(base: InferenceCall, headers: GatewayHeaders, io: Io, deps: ExecuteDeps): Promise<Execution> {
  const principal = io.principal;
  const workspace = deps.workspaceDefaults && principal ? await deps.workspaceDefaults(principal.organisationId, principal.workspaceId) : NO_WORKSPACE_DEFAULTS;
  // x-gateway-config, else the key's or the workspace's default config; saved ones come from the in-process cache
  const requested = await configForRequest(headers.config, principal, deps.savedConfigs, {
    isKnownProvider: (name) => deps.registry.has(name),
    servesEmbeddings: (name) => deps.registry.get(name)?.capabilities.routes.has('embeddings') === true,
  });
  if (!requested) return single(base, headers, io, deps, workspace);
  const { config, saved: savedConfig } = requested;
  const random = deps.random ?? Math.random;
  const planned = plan(config, { metadata: headers.metadata, params: base.body }, random);
  let index: number | undefined = 0;
  while (index !== undefined) {
    const attempt: Attempt = planned.attempts[index]!;
    if (attempt.target.virtualKey) {
      throw notImplemented('Virtual keys in configs are not available in this version yet.', 'virtual_key_not_supported');
    }
    const attemptHeaders = headersFor(headers, attempt);
    const guarded = await guardInput(
      callFor(base, attempt),
      { input: attempt.target.inputGuardrails, output: attempt.target.outputGuardrails, path: attempt.path, workspace, headers, principal, clientGone: io.clientGone },
      deps,
    );
    if (guarded.status !== 200) {
      // an input verdict does not change on a retry: only a fallback can do something about it
      const next = nextAttempt(planned, index, guarded.status);
      if (next !== undefined) {
        index = next;
        continue;
      }
      if (guarded.status === GUARDRAIL_DENIED_STATUS) throw guardrailDenied('input', guarded.input);
    }
    const { call } = guarded;
    const { adapter, target } = await resolveTarget(attemptHeaders, call.route, deps);
    const cache =
      attempt.target.cache && deps.responses
        ? await lookupCache({ settings: attempt.target.cache, responses: deps.responses, call, provider: adapter.name, headers: attemptHeaders, clientGone: io.clientGone }, deps)
        : undefined;
    const guardrails = { input: guarded.input, output: guarded.output };
    const common = { adapter, target, call, optionPath: attempt.path, timeoutMs: attemptHeaders.requestTimeoutMs, savedConfig };
    if (cache?.cached) return { ...common, guardrails, attempt: undefined, cached: cache.cached, retries: 0, cacheStatus: cache.status, cacheWarnings: cache.warnings };
    const cacheFields = cache ? { cache: cache.plan, cacheStatus: cache.status, cacheWarnings: cache.warnings } : { cacheStatus: 'DISABLED' as const };
    const retry = attempt.target.retry ?? { attempts: 0, onStatusCodes: undefined, useRetryAfterHeader: false };
    let answer: UpstreamAttempt | undefined;
    let judged: JudgedAnswer | undefined;
    let failure: unknown;
    let retries = 0;
    for (;;) {
      answer = undefined;
      judged = undefined;
      try {
        answer = await callUpstream(deps.upstream, adapter, target, call, {
          headers: attemptHeaders,
          ...io,
          allowlist: deps.allowlist,
          ...(deps.lookup ? { lookup: deps.lookup } : {}),
        });
        if (judgesOutput(guarded.output, call, answer)) {
          judged = await judgeAnswer(answer, guarded.output, { ...common, metadata: headers.metadata, signal: io.clientGone.signal }, deps);
        }
      } catch (error) {
        // a timeout while the answer is read for its output guardrails is a failure like any other
        answer?.done();
        answer = undefined;
        if (!isNetworkFailure(error)) throw error;
        failure = error;
      }
      // a judged answer counts with its guardrail status (246, 446), so retry and fallback settings can name it
      const guardrailStatus = judged && judged.status !== 200 ? judged.status : undefined;
      const status = guardrailStatus ?? answer?.response.statusCode;
      const retryable = status === undefined || ((status >= 300 || guardrailStatus !== undefined) && isRetryableStatus(retry, status));
      if (!retryable || retries >= retry.attempts || io.clientGone.aborted) break;
      const wait = retryDelayMs(retry, retries, answer?.response.headers, random, Date.now());
      answer?.done();
      retries += 1;
      await sleep(wait, undefined, { signal: io.clientGone.signal }).catch(() => {});
    }
    const guardrailStatus = judged && judged.status !== 200 ? judged.status : undefined;
    const status = guardrailStatus ?? answer?.response.statusCode;
    const chosen = { ...common, guardrails: { ...guardrails, judged }, retries };
    const failed = status === undefined || status >= 300 || guardrailStatus !== undefined;
    const next: number | undefined = failed ? nextAttempt(planned, index, status ?? 'network') : undefined;
    if (next !== undefined) {
      answer?.done();
      index = next;
      continue;
    }
    // an error answer (or a denied one) is never stored; the renderer answers a denial with its verdicts
    if (answer) return { ...chosen, attempt: answer, ...(status !== undefined && status < 300 ? cacheFields : { cacheStatus: cacheFields.cacheStatus }) };
    throw failure;
  }
  throw new Error('unreachable: the plan always has an attempt');
}
