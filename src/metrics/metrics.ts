/** Prometheus metrics: one registry per app instance (tests build several apps in one process). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  duration: Histogram<'route' | 'method'>;
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
  };
}
