/**
 * Gauges read when Prometheus scrapes, not kept up to date on the request path: the request log's queue depth and
 * the upstream keep-alive pools. Their sources are attached once the writer and the client exist (gateway.ts);
 * until then the gauges report nothing.
 */
import { Gauge, type Registry } from 'prom-client';
import type { UpstreamPoolStats } from '../upstream/client.ts';
import { createLabelCap } from './label-cap.ts';

export interface RuntimeSources {
  /** rows waiting in the request log's queue (RequestLogWriter.pending) */
  requestLogPending?: () => number;
  /** their bytes (RequestLogWriter.queuedBytes) */
  requestLogBytes?: () => number;
  /** the upstream client's pools (UpstreamClient.poolStats) */
  upstreamPools?: () => readonly UpstreamPoolStats[];
}

export interface RuntimeGauges {
  /** attaches (or replaces) the sources read at scrape time */
  watch(sources: RuntimeSources): void;
}

const POOL_STATES = ['connected', 'free', 'pending', 'queued', 'running', 'size'] as const;

/** origins come from clients too (custom hosts, cloud resource names): the first ones seen are kept by name */
const DEFAULT_MAX_ORIGINS = 50;

export function createRuntimeGauges(registry: Registry, options: { maxOrigins?: number } = {}): RuntimeGauges {
  let sources: RuntimeSources = {};
  const origins = createLabelCap(options.maxOrigins ?? DEFAULT_MAX_ORIGINS);
  new Gauge({
    name: 'gateway_request_log_queue_depth',
    help: 'Request-log rows waiting in memory for their batch INSERT (GATEWAY_LOG_BUFFER_ROWS at most, 50,000 by default)',
    registers: [registry],
    collect() {
      if (sources.requestLogPending) this.set(sources.requestLogPending());
    },
  });
  new Gauge({
    name: 'gateway_request_log_queue_bytes',
    help: 'Bytes of the request-log rows waiting in memory (GATEWAY_LOG_BUFFER_BYTES at most, 256 MiB by default)',
    registers: [registry],
    collect() {
      if (sources.requestLogBytes) this.set(sources.requestLogBytes());
    },
  });
  new Gauge({
    name: 'gateway_upstream_pool_connections',
    help: 'Upstream keep-alive pools by agent (default, custom), origin and state: connected, free (idle), pending, queued, running, size',
    labelNames: ['agent', 'origin', 'state'],
    registers: [registry],
    collect() {
      // pools come and go (an idle origin's pool closes): only the pools of this moment are reported
      this.reset();
      if (!sources.upstreamPools) return;
      const totals = new Map<string, { agent: string; origin: string; counts: Record<(typeof POOL_STATES)[number], number> }>();
      for (const pool of sources.upstreamPools()) {
        const origin = origins.value(pool.origin);
        const key = `${pool.agent} ${origin}`;
        let entry = totals.get(key);
        if (!entry) {
          entry = { agent: pool.agent, origin, counts: { connected: 0, free: 0, pending: 0, queued: 0, running: 0, size: 0 } };
          totals.set(key, entry);
        }
        // pools past the cap are summed under `other`
        for (const state of POOL_STATES) entry.counts[state] += pool[state];
      }
      for (const { agent, origin, counts } of totals.values()) {
        for (const state of POOL_STATES) this.set({ agent, origin, state }, counts[state]);
      }
    },
  });
  return {
    watch(next) {
      sources = { ...sources, ...next };
    },
  };
}
