/**
 * The settings one attempt runs with, after inheritance down the config tree. A child inherits every setting its
 * parent has unless it sets it itself, with two exceptions:
 * - `override_params` merge: the parent's params, then the child's over them (shallow: a child's `metadata`
 *   replaces the parent's whole `metadata`, as a request param would);
 * - the destination (provider, api_key, virtual_key, custom_host, cloud fields) is inherited as a whole or not at
 *   all: a child that names its own provider or virtual key inherits none of them, so a parent's key for one
 *   provider is never sent to a child's other provider. A child that names neither may replace single credentials
 *   (another api_key, another region) of the parent's provider.
 */
import type { Guardrail } from '../guardrails/types.ts';
import type { CacheConfig, Config } from './config-schema.ts';

export type { Guardrail };

export interface PlannedRetry {
  attempts: number;
  /** undefined: the executor's default retry statuses */
  onStatusCodes: readonly number[] | undefined;
  useRetryAfterHeader: boolean;
}

/** Where the semantic cache embeds prompts: a destination of its own, like a target's. */
export interface PlannedEmbedding {
  provider: string;
  model: string;
  apiKey: string | undefined;
  customHost: string | undefined;
  /** keyed like PlannedTarget.cloud */
  cloud: Readonly<Record<string, string>>;
}

/** A node's `cache` replaces its parent's as a whole: a child that sets one never mixes in the parent's fields. */
export interface PlannedCache {
  mode: 'simple' | 'semantic';
  /** undefined: the cache's default lifetime */
  maxAgeSeconds: number | undefined;
  /** semantic: the cosine a match needs; undefined: DEFAULT_SEMANTIC_THRESHOLD */
  similarityThreshold: number | undefined;
  /** semantic: undefined means exact match only (docs/routing.md) */
  embedding: PlannedEmbedding | undefined;
}

export interface PlannedTarget {
  /** undefined only for a root config without one: the request headers then choose the provider */
  provider: string | undefined;
  apiKey: string | undefined;
  virtualKey: string | undefined;
  customHost: string | undefined;
  /** cloud settings keyed like ProviderTarget.cloud: the x-gateway-* header suffix, as parseConfig gathered them */
  cloud: Readonly<Record<string, string>>;
  /** params merged over the request body before the call */
  overrideParams: Readonly<Record<string, unknown>>;
  retry: PlannedRetry | undefined;
  requestTimeoutMs: number | undefined;
  cache: PlannedCache | undefined;
  inputGuardrails: readonly Guardrail[] | undefined;
  outputGuardrails: readonly Guardrail[] | undefined;
  beforeRequestHooks: readonly Readonly<Record<string, unknown>>[] | undefined;
  afterRequestHooks: readonly Readonly<Record<string, unknown>>[] | undefined;
  /** lower-cased header names */
  forwardHeaders: readonly string[] | undefined;
  fetchIntegratedModels: boolean | undefined;
  strictOpenAiCompliance: boolean | undefined;
  strictReferenceCompliance: boolean | undefined;
}

/** What the root config inherits from: nothing. */
export const NO_SETTINGS: PlannedTarget = {
  provider: undefined,
  apiKey: undefined,
  virtualKey: undefined,
  customHost: undefined,
  cloud: {},
  overrideParams: {},
  retry: undefined,
  requestTimeoutMs: undefined,
  cache: undefined,
  inputGuardrails: undefined,
  outputGuardrails: undefined,
  beforeRequestHooks: undefined,
  afterRequestHooks: undefined,
  forwardHeaders: undefined,
  fetchIntegratedModels: undefined,
  strictOpenAiCompliance: undefined,
  strictReferenceCompliance: undefined,
};

/** The settings of `node` given its parent's (already inherited) settings. */
export function inherit(parent: PlannedTarget, node: Config): PlannedTarget {
  const ownDestination = node.provider !== undefined || node.virtual_key !== undefined;
  const base = ownDestination ? NO_SETTINGS : parent;
  return {
    provider: ownDestination ? node.provider : parent.provider,
    virtualKey: ownDestination ? node.virtual_key : parent.virtualKey,
    apiKey: node.api_key ?? base.apiKey,
    customHost: node.custom_host ?? base.customHost,
    cloud: { ...base.cloud, ...node.cloud },
    overrideParams: { ...parent.overrideParams, ...node.override_params },
    retry: node.retry
      ? {
          attempts: node.retry.attempts,
          onStatusCodes: node.retry.on_status_codes,
          useRetryAfterHeader: node.retry.use_retry_after_header ?? false,
        }
      : parent.retry,
    requestTimeoutMs: node.request_timeout ?? parent.requestTimeoutMs,
    cache: node.cache ? plannedCache(node.cache) : parent.cache,
    inputGuardrails: node.input_guardrails ?? parent.inputGuardrails,
    outputGuardrails: node.output_guardrails ?? parent.outputGuardrails,
    beforeRequestHooks: node.before_request_hooks ?? parent.beforeRequestHooks,
    afterRequestHooks: node.after_request_hooks ?? parent.afterRequestHooks,
    forwardHeaders: node.forward_headers?.map((name) => name.toLowerCase()) ?? parent.forwardHeaders,
    fetchIntegratedModels: node.fetch_integrated_models ?? parent.fetchIntegratedModels,
    strictOpenAiCompliance: node.strict_open_ai_compliance ?? parent.strictOpenAiCompliance,
    strictReferenceCompliance: node.strict_reference_compliance ?? parent.strictReferenceCompliance,
  };
}

function plannedCache(cache: CacheConfig): PlannedCache {
  const { embedding } = cache;
  return {
    mode: cache.mode,
    maxAgeSeconds: cache.max_age,
    similarityThreshold: cache.similarity_threshold,
    embedding: embedding && {
      provider: embedding.provider,
      model: embedding.model,
      apiKey: embedding.api_key,
      customHost: embedding.custom_host,
      cloud: embedding.cloud ?? {},
    },
  };
}
