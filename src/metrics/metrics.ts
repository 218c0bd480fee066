/** Prometheus metrics: one registry per app instance (tests build several apps in one process). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  duration: Histogram<'route' | 'method'>;
  /** request-log records lost: `queue_full` (the oldest dropped), `write_failed` (a batch the database refused), `closed` */
  requestLogDropped: Counter<'reason'>;
}

export function createMetrics(options: { collectDefaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.collectDefaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
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
  };
}
