/**
 * Prometheus metrics: one registry per app instance (tests build several apps in one process). Every metric, its
 * labels and their bounds are listed in docs/operations.md ("Metrics and traces").
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { createRequestMetrics, type RequestMetrics, type RequestMetricsOptions } from './request-metrics.ts';
import { createRuntimeGauges, type RuntimeGauges } from './runtime-gauges.ts';

export interface Metrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  duration: Histogram<'route' | 'method'>;
  /** request-log records lost: `queue_full` (the oldest dropped), `write_failed` (a batch the database refused), `closed` */
  requestLogDropped: Counter<'reason'>;
  /** requests refused by a rate limit, by where the limit comes from (policy, api_key, workspace, provider) and its type */
  rateLimited: Counter<'source' | 'type'>;
  /**
   * rate-limit decisions made without the counter store (Redis unreachable or too slow): `open` let through,
   * `closed` refused, `tokens_lost` an answer's tokens that could not be counted
   */
  rateLimitStoreFailures: Counter<'outcome'>;
  /** requests a budget (usage limit) refused, by where the budget comes from (policy, api_key, workspace, provider) and its type */
  budgetRefused: Counter<'source' | 'type'>;
  /** budget alerts recorded: `threshold` (alert_threshold reached) or `exhausted`, once per window, by source */
  budgetAlerts: Counter<'kind' | 'source'>;
  /**
   * budget decisions made without the counter store (Redis unreachable or too slow): `open` let through, `closed`
   * refused, `settle_lost` a request's usage that could not be counted
   */
  budgetStoreFailures: Counter<'outcome'>;
  /** requests a cost budget could not count: no price is known for their model */
  budgetUnpriced: Counter;
  /** requests answered 503 because the database could not be reached */
  storageUnavailable: Counter;
  /** each finished inference request, from its log row: its `observe` is a request observer */
  request: RequestMetrics;
  /** gauges read at scrape time: the request log's queue, the upstream pools */
  runtime: RuntimeGauges;
}

export interface MetricsOptions extends RequestMetricsOptions {
  collectDefaults?: boolean;
  /** distinct upstream origins named in the pool gauges before the rest are `other` (default 50) */
  maxOrigins?: number;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.collectDefaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
    request: createRequestMetrics(registry, options),
    runtime: createRuntimeGauges(registry, options),
    requests: new Counter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests answered, by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from request to the end of the response, by route',
      labelNames: ['route', 'method'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    requestLogDropped: new Counter({
      name: 'gateway_request_log_dropped_total',
      help: 'Request-log records dropped before reaching the database, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'gateway_rate_limited_total',
      help: 'Requests refused by a rate limit, by the source of the limit and its type',
      labelNames: ['source', 'type'],
      registers: [registry],
    }),
    rateLimitStoreFailures: new Counter({
      name: 'gateway_rate_limit_store_failures_total',
      help: 'Rate-limit decisions made without the counter store (unreachable or too slow), by outcome: open, closed, tokens_lost',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    budgetRefused: new Counter({
      name: 'gateway_budget_refused_total',
      help: 'Requests refused by a budget (usage limit), by the source of the budget and its type',
      labelNames: ['source', 'type'],
      registers: [registry],
    }),
    budgetAlerts: new Counter({
      name: 'gateway_budget_alerts_total',
      help: 'Budget alerts recorded (once per window): threshold reached or exhausted, by the source of the budget',
      labelNames: ['kind', 'source'],
      registers: [registry],
    }),
    budgetStoreFailures: new Counter({
      name: 'gateway_budget_store_failures_total',
      help: 'Budget decisions made without the counter store (unreachable or too slow), by outcome: open, closed, settle_lost',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    budgetUnpriced: new Counter({
      name: 'gateway_budget_unpriced_total',
      help: 'Requests a cost budget applied to but could not count, because no price is known for their model',
      registers: [registry],
    }),
    storageUnavailable: new Counter({
      name: 'gateway_storage_unavailable_total',
      help: 'Requests answered 503 storage_unavailable because the database could not be reached',
      registers: [registry],
    }),
  };
}
