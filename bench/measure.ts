/**
 * One bench target driven by autocannon: the smoke check of its answers (a chat completion and a stream carrying
 * the mock's reply), and a measured run (warm-up, then throughput, latency at full precision, the target's CPU
 * per request and resident memory).
 */
import autocannon, { type Instance, type Result } from 'autocannon';
import { BenchError, onBeforeStop, sleep } from './children.ts';
import { MODES, type Mode, type RunResult, type TargetName } from './comparisons.ts';
import { mib, procCpuSeconds, RssSampler } from './proc-stats.ts';
import { MOCK_REPLY, makeChatRequest } from './shared.ts';

/** The request bodies, one per mode: the bench's chat request (4 KB prompt). */
export const BODIES: Record<Mode, string> = {
  'non-stream': JSON.stringify(makeChatRequest(false)),
  stream: JSON.stringify(makeChatRequest(true)),
};

/** Seconds of warm-up, then of measurement, per run. */
export interface RunLength {
  warmup: number;
  duration: number;
}

/** autocannon's run in progress, stopped when the harness stops its children. */
let currentRun: Instance | undefined;
onBeforeStop(() => currentRun?.stop());

export interface Target {
  name: TargetName;
  url: string; // full URL of the chat completions endpoint
  headers: Record<string, string>;
  pid?: number; // the process serving this target, for CPU and RSS figures
}

function checkResponse(target: Target, mode: Mode, status: number, contentType: string, text: string): void {
  const fail = (why: string): never => {
    throw new BenchError(
      `smoke check failed for ${target.name} (${mode}, ${target.url}): ${why}\n` +
        `status ${status}, content-type ${contentType || '(none)'}, body: ${text.slice(0, 800)}`,
    );
  };
  if (status !== 200) fail('status is not 200');
  if (mode === 'non-stream') {
    let json: { choices?: { message?: { content?: unknown } }[] };
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      return fail('body is not JSON');
    }
    if (json.choices?.[0]?.message?.content !== MOCK_REPLY) fail("choices[0].message.content is not the mock's reply");
    return;
  }
  if (!contentType.includes('text/event-stream')) fail('content-type is not text/event-stream');
  const data = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  if (data[data.length - 1] !== '[DONE]') fail('stream does not end with data: [DONE]');
  let content = '';
  for (const d of data.slice(0, -1)) {
    try {
      const chunk = JSON.parse(d) as { choices?: { delta?: { content?: unknown } }[] };
      const piece = chunk.choices?.[0]?.delta?.content;
      if (typeof piece === 'string') content += piece;
    } catch {
      fail(`stream event is not JSON: ${d.slice(0, 200)}`);
    }
  }
  if (content !== MOCK_REPLY) fail(`concatenated deltas ${JSON.stringify(content)} are not the mock's reply`);
}

export async function smokeCheck(target: Target): Promise<void> {
  for (const mode of MODES) {
    let res: Response;
    let text: string;
    try {
      res = await fetch(target.url, {
        method: 'POST',
        headers: target.headers,
        body: BODIES[mode],
        signal: AbortSignal.timeout(15_000),
      });
      text = await res.text();
    } catch (err) {
      const cause = (err as Error & { cause?: unknown }).cause;
      throw new BenchError(
        `smoke check failed for ${target.name} (${mode}, ${target.url}): request failed: ${(err as Error).message}` +
          (cause instanceof Error ? ` (${cause.message})` : ''),
      );
    }
    checkResponse(target, mode, res.status, res.headers.get('content-type') ?? '', text);
  }
  console.log(`  ok  ${target.name.padEnd(16)} ${target.url}`);
}


/**
 * Per-response latencies at full precision. autocannon's own histogram stores whole milliseconds, too coarse for
 * sub-millisecond p50s and for the gateway-minus-bare-proxy difference; its 'response' event carries the
 * hrtime-based float value, which is what we record (2xx only, as autocannon does).
 */
class LatencyRecorder {
  private buf = new Float64Array(1 << 16);
  private n = 0;
  add(ms: number): void {
    if (this.n === this.buf.length) {
      const bigger = new Float64Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.n++] = ms;
  }
  get count(): number {
    return this.n;
  }
  summary(): { p50: number; p99: number; mean: number; max: number } | null {
    if (this.n === 0) return null;
    const sorted = this.buf.slice(0, this.n).sort();
    const at = (p: number): number => sorted[Math.min(this.n - 1, Math.max(0, Math.ceil((p / 100) * this.n) - 1))]!;
    let sum = 0;
    for (const v of sorted) sum += v;
    return { p50: at(50), p99: at(99), mean: sum / this.n, max: sorted[this.n - 1]! };
  }
}

async function autocannonRun(
  target: Target,
  connections: number,
  mode: Mode,
  duration: number,
  latencies?: LatencyRecorder,
): Promise<Result> {
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: BODIES[mode],
    connections,
    duration,
    pipelining: 1,
    timeout: 10,
  });
  if (latencies) {
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.add(ms);
    });
  }
  currentRun = instance;
  try {
    return await instance;
  } finally {
    currentRun = undefined;
  }
}

export async function measure(target: Target, connections: number, mode: Mode, length: RunLength): Promise<RunResult> {
  await autocannonRun(target, connections, mode, length.warmup);
  await sleep(200);

  const sampler = new RssSampler(target.pid);
  const cpu0 = target.pid === undefined ? null : procCpuSeconds(target.pid);
  const self0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const latencies = new LatencyRecorder();
  sampler.start();
  const r = await autocannonRun(target, connections, mode, length.duration, latencies);
  sampler.stop();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu1 = target.pid === undefined ? null : procCpuSeconds(target.pid);
  const self = process.cpuUsage(self0);

  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCodes[code] = count;
  const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
  const lat = latencies.summary() ?? { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, max: r.latency.max };
  return {
    target: target.name,
    connections,
    mode,
    durationSec: length.duration,
    requestsPerSec: round(r.requests.mean, 1),
    latencyP50Ms: round(lat.p50, 3),
    latencyP99Ms: round(lat.p99, 3),
    latencyMeanMs: round(lat.mean, 3),
    latencyMaxMs: round(lat.max, 3),
    autocannonLatencyP99Ms: r.latency.p99,
    completedRequests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    targetCpuPct: cpu0 === null || cpu1 === null ? null : round(((cpu1 - cpu0) / wall) * 100, 0),
    targetCpuUsPerRequest: cpu0 === null || cpu1 === null || r.requests.total === 0 ? null : round(((cpu1 - cpu0) / r.requests.total) * 1e6, 0),
    loadgenCpuPct: round(((self.user + self.system) / 1e6 / wall) * 100, 0),
    targetMaxRssMiB: mib(sampler.maxKiB),
  };
}
