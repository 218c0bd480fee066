/**
 * Latency at one connection: what a proxy adds to a single client's request when nothing else is queued. One undici
 * Client per target (one keep-alive connection, no pipelining) sends requests one after another; the targets take
 * turns in rounds of ROUND requests, so drift in background load touches each alike. Per request it records:
 *   - JSON: the time to the whole answer;
 *   - stream: the time to the first chunk of the body that carries a content delta (the first token).
 * Percentiles are nearest-rank over every request; "added" is a target's percentile minus the direct target's (the
 * same request straight to the mock) and minus the bare proxy's.
 */
import { Client } from 'undici';

export interface LatencyTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface LatencyResult {
  target: string;
  mode: 'json' | 'first-token';
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

const ROUND = 50;

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** One request on `client`: ms to the whole answer, or for a stream to its first content delta. */
export async function once(client: Client, target: LatencyTarget, body: string, stream: boolean): Promise<number> {
  const url = new URL(target.url);
  const started = process.hrtime.bigint();
  const response = await client.request({ method: 'POST', path: url.pathname, headers: target.headers, body });
  if (response.statusCode !== 200) throw new Error(`${target.name}: ${response.statusCode} ${await response.body.text()}`);
  let firstToken: bigint | undefined;
  for await (const chunk of response.body) {
    if (stream && firstToken === undefined && (chunk as Buffer).includes('"content"')) firstToken = process.hrtime.bigint();
  }
  const ended = process.hrtime.bigint();
  if (stream && firstToken === undefined) throw new Error(`${target.name}: a stream without a content delta`);
  return Number((stream ? firstToken! : ended) - started) / 1e6;
}

/** `requests` per target and mode (after `warmup` each, discarded), the targets interleaved in rounds. */
export async function measureLatency(
  targets: readonly LatencyTarget[],
  bodies: { json: string; stream: string },
  options: { requests: number; warmup: number },
): Promise<LatencyResult[]> {
  const results: LatencyResult[] = [];
  for (const mode of ['json', 'first-token'] as const) {
    const stream = mode === 'first-token';
    const body = stream ? bodies.stream : bodies.json;
    const clients = targets.map((target) => new Client(new URL(target.url).origin, { pipelining: 1 }));
    const samples = targets.map(() => [] as number[]);
    try {
      for (const [index, target] of targets.entries()) {
        for (let i = 0; i < options.warmup; i += 1) await once(clients[index]!, target, body, stream);
      }
      while (samples[0]!.length < options.requests) {
        for (const [index, target] of targets.entries()) {
          for (let i = 0; i < ROUND && samples[index]!.length < options.requests; i += 1) samples[index]!.push(await once(clients[index]!, target, body, stream));
        }
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    for (const [index, target] of targets.entries()) {
      const sorted = samples[index]!.sort((a, b) => a - b);
      results.push({ target: target.name, mode, requests: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) });
    }
  }
  return results;
}

/** A target's p50 and p99 minus a reference target's, per mode. */
export function addedLatency(results: readonly LatencyResult[], target: string, reference: string) {
  return (['json', 'first-token'] as const).flatMap((mode) => {
    const of = results.find((r) => r.target === target && r.mode === mode);
    const base = results.find((r) => r.target === reference && r.mode === mode);
    if (!of || !base) return [];
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return [{ target, reference, mode, addedP50Ms: round(of.p50Ms - base.p50Ms), addedP99Ms: round(of.p99Ms - base.p99Ms) }];
  });
}
