/**
 * The upstream HTTP client: undici Agents (one keep-alive pool per origin, created once, reused), never the
 * global fetch. Custom hosts go through a second Agent whose DNS lookup refuses blocked addresses at connect
 * time, so a name that re-resolves to a private address after the first check still cannot be reached.
 * Redirects are never followed: a 3xx goes back to the client as it came.
 */
import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { guardedLookup, type Allowlist } from './ssrf-guard.ts';

/** One request to a provider, as an adapter built it. */
export interface UpstreamRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
  /** settings the provider cannot honour, reported to the client in x-gateway-warnings */
  warnings: string[];
}

/** An upload streamed to the provider (POST /v1/files): its body is piped through, never held whole in memory. */
export interface StreamedUpstreamRequest extends Omit<UpstreamRequest, 'body'> {
  body: Readable;
}

/**
 * One origin's keep-alive pool, as undici counts it: `agent` is `default` (provider URLs) or `custom` (custom hosts,
 * through the SSRF-guarded Agent). An origin whose connections have all closed has no pool and is not listed.
 */
export interface UpstreamPoolStats {
  agent: 'default' | 'custom';
  origin: string;
  /** open connections */
  connected: number;
  /** open connections not serving a request */
  free: number;
  /** requests waiting across the pool's connections */
  pending: number;
  /** requests queued in the pool, waiting for a connection */
  queued: number;
  /** requests in flight */
  running: number;
  /** active, pending and queued requests */
  size: number;
}

export interface UpstreamClient {
  /** `signal` may be an EventEmitter that emits 'abort' (undici reads its `aborted` and `reason`) */
  send(request: UpstreamRequest | StreamedUpstreamRequest, options: { customHost: boolean; signal: AbortSignal | EventEmitter }): Promise<Dispatcher.ResponseData>;
  /** read-only: each origin's pool as it is now (read at metrics scrape time) */
  poolStats?(): UpstreamPoolStats[];
  close(): Promise<void>;
}

function statsOf(agent: Agent, name: UpstreamPoolStats['agent']): UpstreamPoolStats[] {
  return Object.entries(agent.stats).map(([origin, stats]) => ({
    agent: name,
    origin,
    // a single Client (connections: 1) counts its one connection as a boolean and has no free or queued count
    connected: Number(stats.connected),
    free: 'free' in stats ? stats.free : Number(stats.connected && stats.running === 0),
    pending: stats.pending,
    queued: 'queued' in stats ? stats.queued : 0,
    running: stats.running,
    size: stats.size,
  }));
}

export function createUpstreamClient(options: { allowlist: Allowlist; connectionsPerOrigin?: number }): UpstreamClient {
  const common = {
    keepAliveTimeout: 30_000,
    connections: options.connectionsPerOrigin ?? 512,
    // the gateway enforces its own timeouts (x-gateway-request-timeout); LLM calls can think for minutes
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  };
  const agent = new Agent(common);
  const guarded = new Agent({ ...common, connect: { lookup: guardedLookup(options.allowlist) } });

  return {
    send(request, { customHost, signal }) {
      const url = new URL(request.url);
      const dispatcher = customHost ? guarded : agent;
      return dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body ?? null,
        signal,
      });
    },
    poolStats() {
      return [...statsOf(agent, 'default'), ...statsOf(guarded, 'custom')];
    },
    async close() {
      await Promise.all([agent.close(), guarded.close()]);
    },
  };
}
