/**
 * Metrics of each finished inference, models or pass-through request, read from its request-log row (one
 * observer, src/logging/observer.ts): counts, latency, time to first token, tokens, cost, cache outcome and
 * upstream tries.
 *
 * Bounded labels only: the route kind (a closed set), the provider (an adapter name), the model (client-chosen:
 * the first `maxModels` distinct values, then `other`), a status class (`2xx` ... `5xx`, `none`), a token kind
 * and a cache status (closed sets). Never trace ids, users, keys, workspaces or metadata.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RequestObserver } from '../logging/observer.ts';
import { createLabelCap, OTHER, statusClass } from './label-cap.ts';
import { rowAttempts } from './row-attempts.ts';

type TargetLabel = 'route' | 'provider' | 'model';

export interface RequestMetrics {
  requests: Counter<TargetLabel | 'status'>;
  duration: Histogram<TargetLabel | 'status'>;
  timeToFirstToken: Histogram<TargetLabel>;
  tokens: Counter<'provider' | 'model' | 'kind'>;
  cost: Counter<'provider' | 'model'>;
  cache: Counter<'route' | 'cache_status'>;
  attempts: Counter<'provider' | 'status'>;
  attemptDuration: Histogram<'provider' | 'status'>;
  /** the observer the request-log hook calls with each finished row */
  observe: RequestObserver;
}

export interface RequestMetricsOptions {
  /** distinct model label values kept before the rest are `other` (default 100) */
  maxModels?: number;
  /** distinct provider label values kept (default 64: every adapter, with room) */
  maxProviders?: number;
}

/** LLM answers take seconds to minutes: buckets up to five minutes */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
const FIRST_TOKEN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
/** route kinds are a closed set in code; the cap only guards against a future unbounded one */
const MAX_ROUTES = 32;

const CACHE_STATUSES: Readonly<Record<string, string>> = {
  HIT: 'hit',
  'SEMANTIC HIT': 'semantic_hit',
  MISS: 'miss',
  REFRESH: 'refresh',
  DISABLED: 'disabled',
};

const TOKEN_KINDS = [
  ['prompt', 'promptTokens'],
  ['completion', 'completionTokens'],
  ['cached', 'cachedTokens'],
  ['cache_write', 'cacheWriteTokens'],
  ['reasoning', 'reasoningTokens'],
] as const;

export function createRequestMetrics(registry: Registry, options: RequestMetricsOptions = {}): RequestMetrics {
  const registers = [registry];
  const routes = createLabelCap(MAX_ROUTES);
  const providers = createLabelCap(options.maxProviders ?? 64);
  const models = createLabelCap(options.maxModels ?? 100);
  const metrics = {
    requests: new Counter({
      name: 'gateway_requests_total',
      help: 'Inference, models and pass-through requests finished, by route kind, provider, model and status class',
      labelNames: ['route', 'provider', 'model', 'status'],
      registers,
    }),
    duration: new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from a request\'s arrival to the end of its answer, by route kind, provider, model and status class',
      labelNames: ['route', 'provider', 'model', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Time from a streamed request\'s arrival to its first byte (first token) sent to the client',
      labelNames: ['route', 'provider', 'model'],
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens reported by answers, by provider, model and kind: prompt, completion, cached, cache_write, reasoning',
      labelNames: ['provider', 'model', 'kind'],
      registers,
    }),
    cost: new Counter({
      name: 'gateway_cost_usd_total',
      help: 'Cost of answers in USD (requests whose price is unknown add nothing), by provider and model',
      labelNames: ['provider', 'model'],
      registers,
    }),
    cache: new Counter({
      name: 'gateway_cache_requests_total',
      help: 'Requests by response-cache outcome: hit, semantic_hit, miss, refresh, disabled',
      labelNames: ['route', 'cache_status'],
      registers,
    }),
    attempts: new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream tries (first tries, retries and fallbacks), by provider and status class (none: no answer)',
      labelNames: ['provider', 'status'],
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'gateway_upstream_attempt_duration_seconds',
      help: 'Duration of each upstream try, by provider and status class',
      labelNames: ['provider', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };

  const observe: RequestObserver = ({ row }) => {
    const provider = providers.value(row.provider);
    const model = models.value(row.model);
    const route = routes.value(row.route);
    const status = statusClass(row.status);
    metrics.requests.inc({ route, provider, model, status });
    metrics.duration.observe({ route, provider, model, status }, row.responseTimeMs / 1000);
    if (row.streamMode && typeof row.firstByteMs === 'number') {
      metrics.timeToFirstToken.observe({ route, provider, model }, row.firstByteMs / 1000);
    }
    for (const [kind, field] of TOKEN_KINDS) {
      const count = row[field];
      if (typeof count === 'number' && count > 0) metrics.tokens.inc({ provider, model, kind }, count);
    }
    const cost = row.cost === null || row.cost === undefined ? Number.NaN : Number(row.cost);
    if (cost > 0) metrics.cost.inc({ provider, model }, cost);
    if (row.cacheStatus) metrics.cache.inc({ route, cache_status: CACHE_STATUSES[row.cacheStatus] ?? OTHER });
    for (const attempt of rowAttempts(row)) {
      const labels = { provider: providers.value(attempt.provider), status: statusClass(attempt.status) };
      metrics.attempts.inc(labels);
      metrics.attemptDuration.observe(labels, attempt.duration_ms / 1000);
    }
  };
  return { ...metrics, observe };
}
