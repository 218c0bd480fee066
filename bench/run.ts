/**
 * Benchmark orchestrator: `npm run bench`.
 *
 * Starts the mock upstream, the bare proxy and the gateway as child processes, checks one request through each,
 * then drives each of them with autocannon (from this process) at 16 and 64 connections, non-streaming and
 * streaming: a warm-up run, then a measured run. Prints a table and the gateway/bare-proxy and gateway/direct
 * ratios, and writes everything to .bench/results.json. The `gateway+policies` target is the same gateway while one
 * rate limits policy and one usage limits policy apply to its key (bench/policies.ts); its throughput is compared
 * with the `gateway` runs of the same bench (the "policies" section).
 *
 * Env:
 *   BENCH_DURATION      seconds per measured run (default 8)
 *   BENCH_WARMUP        seconds of warm-up before each measured run (default 2)
 *   BENCH_GATEWAY_URL   e.g. http://127.0.0.1:8080 — use an already running gateway instead of spawning one
 *                       (it must accept the custom host http://127.0.0.1:<mockPort>/v1; for a self-test of the
 *                       harness, point it at a bare proxy); the policies target is then skipped (no admin key)
 *   BENCH_POLICIES      0 skips the gateway+policies target (default: run it)
 *   BENCH_LATENCY_REQUESTS  requests per target and mode of the one-connection latency section (default 2000; 0 skips it)
 *   BENCH_NOLOG         0 skips the gateway-nolog target (default: run it): a second gateway process started with
 *                       GATEWAY_REQUEST_LOG=off, against which the `gateway` (full request log, bodies included)
 *                       is compared in the "request log" section
 *   BENCH_NODE_FLAGS    node/V8 flags for the gateway processes instead of `npm start`'s ("" for V8's defaults)
 *   BENCH_WORKERS       server processes of the `gateway-workers` target (GATEWAY_WORKERS; default: the number of
 *                       cores; 1 skips it), compared with the one-process `gateway` in the "workers" section
 * See docs/performance.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Instance, type Result } from 'autocannon';
import { ensureBuilt, startFlags } from './build.ts';
import { loggingRatios, MODES, policyRatios, ratios, table, workerScaling, type Mode, type RunResult, type TargetName } from './comparisons.ts';
import { addedLatency, measureLatency, type LatencyTarget } from './latency.ts';
import { benchPolicies, type BenchPolicies } from './policies.ts';
import { MOCK_REPLY, makeChatRequest } from './shared.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const OUT_DIR = path.join(ROOT, '.bench');
const GATEWAY_PID_FILE = path.join(OUT_DIR, 'gateway.pid.json');

const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const CONNECTIONS = [16, 64] as const;

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds, got "${raw}"`);
  return n;
}

const DURATION = envSeconds('BENCH_DURATION', 8);
const WARMUP = envSeconds('BENCH_WARMUP', 2);
const EXTERNAL_GATEWAY = process.env.BENCH_GATEWAY_URL?.replace(/\/+$/, '') || undefined;
const WITH_POLICIES = process.env.BENCH_POLICIES !== '0' && !EXTERNAL_GATEWAY;
const WITH_NOLOG = process.env.BENCH_NOLOG !== '0' && !EXTERNAL_GATEWAY;
const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 2000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? os.availableParallelism());
const WITH_WORKERS = Number.isInteger(WORKERS) && WORKERS > 1 && !EXTERNAL_GATEWAY;

const BODIES: Record<Mode, string> = {
  'non-stream': JSON.stringify(makeChatRequest(false)),
  stream: JSON.stringify(makeChatRequest(true)),
};

/** An expected failure (bad setup, failed smoke check): reported without a stack trace. */
class BenchError extends Error {}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// Child processes: tracked so they are always killed, on success, on error, on Ctrl-C and on process exit.

interface Child {
  name: string;
  proc: ChildProcess;
  logFile?: string;
}

const children: Child[] = [];
const tempDataDirs: string[] = [];
let currentRun: Instance | undefined;

function alive(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

function killAll(signal: NodeJS.Signals): void {
  for (const c of children) {
    if (alive(c.proc)) {
      try {
        c.proc.kill(signal);
      } catch {
        // already gone
      }
    }
  }
}

function waitExit(proc: ChildProcess): Promise<void> {
  if (!alive(proc)) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

async function stopAll(): Promise<void> {
  currentRun?.stop();
  killAll('SIGTERM');
  await Promise.race([Promise.all(children.map((c) => waitExit(c.proc))), sleep(3000)]);
  killAll('SIGKILL');
}

function removeTempDir(): void {
  for (const dir of tempDataDirs.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
}

process.on('exit', () => {
  killAll('SIGKILL');
  removeTempDir();
  if (children.some((c) => c.name.startsWith('gateway'))) fs.rmSync(GATEWAY_PID_FILE, { force: true });
});

let shuttingDown = false;
function onSignal(signal: NodeJS.Signals, code: number): void {
  if (shuttingDown) {
    killAll('SIGKILL');
    process.exit(code);
  }
  shuttingDown = true;
  console.error(`\n${signal}: stopping child processes...`);
  void stopAll().finally(() => process.exit(code));
}
process.on('SIGINT', () => onSignal('SIGINT', 130));
process.on('SIGTERM', () => onSignal('SIGTERM', 143));

function tail(file: string | undefined, lines = 40): string {
  if (!file) return '';
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Spawns one of the bench/*.ts helpers and waits for the {"port":N} line it prints once listening. */
function startHelper(name: string, script: string, args: string[] = []): Promise<{ port: number; pid: number }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, BENCH_EXIT_ON_STDIN_END: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push({ name, proc });
  return new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    const timer = setTimeout(() => finish(new BenchError(`${name}: no port announced within 30 s`)), 30_000);
    function finish(err: Error | null, port?: number): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve({ port: port!, pid: proc.pid! });
    }
    proc.stdout!.on('data', (chunk: Buffer) => {
      if (done) return; // keep draining so the child never blocks on a full pipe
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl === -1) return;
      try {
        const port = (JSON.parse(buf.slice(0, nl)) as { port?: unknown }).port;
        if (typeof port !== 'number') throw new Error('no numeric "port"');
        finish(null, port);
      } catch (err) {
        finish(new BenchError(`${name}: bad announce line ${JSON.stringify(buf.slice(0, nl))}: ${(err as Error).message}`));
      }
    });
    proc.once('error', (err) => finish(err));
    proc.once('exit', (code, signal) => finish(new BenchError(`${name} exited early (code ${code}, signal ${signal})`)));
  });
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * The helpers exit by themselves when this process dies (their stdin closes), but the gateway cannot be told to,
 * so if a previous run was SIGKILLed its gateway may still be running. We record the gateway's pid and temp dir
 * and, on the next run, stop that process only if it is still that bench gateway (same pid, command line running
 * dist/main.js, environment pointing at the recorded temp dir).
 */
function reapStaleGateways(): void {
  let recorded: unknown;
  try {
    recorded = JSON.parse(fs.readFileSync(GATEWAY_PID_FILE, 'utf8'));
  } catch {
    return;
  }
  fs.rmSync(GATEWAY_PID_FILE, { force: true });
  for (const stale of Array.isArray(recorded) ? recorded : [recorded]) reapStaleGateway(stale as { pid?: unknown; dataDir?: unknown });
}

/** Gateways started by this run: written to GATEWAY_PID_FILE so a later run can reap them. */
const startedGateways: Array<{ pid: number; dataDir: string }> = [];

function reapStaleGateway(stale: { pid?: unknown; dataDir?: unknown }): void {
  if (typeof stale.pid !== 'number' || typeof stale.dataDir !== 'string') return;
  try {
    const cmdline = fs.readFileSync(`/proc/${stale.pid}/cmdline`, 'utf8');
    const environ = fs.readFileSync(`/proc/${stale.pid}/environ`, 'utf8').split('\0');
    if (cmdline.includes(path.join('dist', 'main.js')) && environ.includes(`GATEWAY_DATA_DIR=${stale.dataDir}`)) {
      process.kill(stale.pid, 'SIGKILL');
      console.log(`stopped a gateway left running by an earlier, killed bench run (pid ${stale.pid})`);
    }
  } catch {
    // not running any more (or not ours to inspect)
  }
  fs.rmSync(stale.dataDir, { recursive: true, force: true });
}

async function startGateway(name = 'gateway', extraEnv: Record<string, string> = {}): Promise<{ url: string; pid: number; child: Child }> {
  if (startedGateways.length === 0) reapStaleGateways();
  const port = await freePort();
  const tempDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  tempDataDirs.push(tempDataDir);
  const logFile = path.join(OUT_DIR, `${name}.log`);
  const logFd = fs.openSync(logFile, 'w');
  const proc = spawn(process.execPath, [...startFlags(), ensureBuilt()], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: tempDataDir,
      GATEWAY_WORKERS: '1',
      GATEWAY_ADMIN_API_KEY: ADMIN_KEY,
      GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  if (proc.pid !== undefined) {
    startedGateways.push({ pid: proc.pid, dataDir: tempDataDir });
    fs.writeFileSync(GATEWAY_PID_FILE, JSON.stringify(startedGateways));
  }
  const child: Child = { name, proc, logFile };
  children.push(child);
  const url = `http://127.0.0.1:${port}`;

  let spawnError: Error | undefined;
  proc.once('error', (err) => (spawnError = err));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (spawnError) throw spawnError;
    if (!alive(proc)) {
      throw new BenchError(
        `gateway exited before /health answered (code ${proc.exitCode}, signal ${proc.signalCode}). ` +
          `Last lines of ${logFile}:\n${tail(logFile)}`,
      );
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new BenchError(`gateway /health did not answer 200 within 60 s. Last lines of ${logFile}:\n${tail(logFile)}`);
    }
    await sleep(100);
  }
  return { url, pid: proc.pid!, child };
}

// ---------------------------------------------------------------------------------------------------------------
// Process stats from /proc (Linux); null elsewhere.

const CLK_TCK = 100; // USER_HZ; 100 on every mainstream Linux build

/** Resident memory of a process and its descendants (a cluster's workers), in KiB. */
function procStatusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  let total: number | null = null;
  for (const each of field === 'VmRSS' ? processTree(pid) : [pid]) {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${each}/status`, 'utf8'));
      if (m) total = (total ?? 0) + Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The process and its descendants (a cluster's primary and its workers): all of a target's threads and processes. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    try {
      for (const task of fs.readdirSync(`/proc/${tree[index]}/task`)) {
        const children = fs.readFileSync(`/proc/${tree[index]}/task/${task}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/** utime + stime of a process and its descendants (every thread of each), in seconds. */
function procCpuSeconds(pid: number): number | null {
  let total = 0;
  for (const each of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${each}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // after "pid (comm) ", field index 0 is state (3rd field); utime is the 14th field, stime the 15th
      total += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
    } catch {
      if (each === pid) return null;
    }
  }
  return total;
}

const mib = (kib: number | null): number | null => (kib === null ? null : Math.round((kib / 1024) * 10) / 10);

class RssSampler {
  maxKiB: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly pid: number | undefined) {}
  start(): void {
    if (this.pid === undefined) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
  private sample(): void {
    if (this.pid === undefined) return;
    const kib = procStatusKiB(this.pid, 'VmRSS');
    if (kib !== null && (this.maxKiB === null || kib > this.maxKiB)) this.maxKiB = kib;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Targets, smoke check, runs.

interface Target {
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

async function smokeCheck(target: Target): Promise<void> {
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

async function measure(target: Target, connections: number, mode: Mode): Promise<RunResult> {
  await autocannonRun(target, connections, mode, WARMUP);
  await sleep(200);

  const sampler = new RssSampler(target.pid);
  const cpu0 = target.pid === undefined ? null : procCpuSeconds(target.pid);
  const self0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const latencies = new LatencyRecorder();
  sampler.start();
  const r = await autocannonRun(target, connections, mode, DURATION, latencies);
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
    durationSec: DURATION,
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

// ---------------------------------------------------------------------------------------------------------------
// Output.

/** The gateway's request-log drop counter (every reason) and queue depth, read from its /metrics. */
async function requestLogDrops(gatewayUrl: string): Promise<{ dropped: number; queued: number } | null> {
  try {
    const res = await fetch(`${gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    const sum = (name: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
        .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    return { dropped: sum('gateway_request_log_dropped_total'), queued: sum('gateway_request_log_queue_depth') };
  } catch {
    return null;
  }
}

/** Runs `work` while the bench policies exist; they are gone again afterwards, whatever happens. */
async function withPolicies<T>(policies: BenchPolicies, work: () => Promise<T>): Promise<T> {
  await policies.enable();
  try {
    return await work();
  } finally {
    await policies.disable();
  }
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const runsTotal = (3 + (WITH_POLICIES ? 1 : 0) + (WITH_NOLOG ? 1 : 0)) * CONNECTIONS.length * MODES.length;
  console.log(
    `bench: ${os.cpus().length} CPUs, node ${process.version}; ${runsTotal} runs of ${WARMUP} s warm-up + ${DURATION} s ` +
      `measured (~${Math.ceil((runsTotal * (WARMUP + DURATION + 0.5)) / 60)} min)`,
  );
  console.log(`request body: ${Buffer.byteLength(BODIES['non-stream'])} bytes\n`);

  const mock = await startHelper('mock-upstream', 'mock-upstream.ts');
  const mockOrigin = `http://127.0.0.1:${mock.port}`;
  const bare = await startHelper('bare-proxy', 'bare-proxy.ts', [mockOrigin]);
  console.log(`mock upstream  pid ${mock.pid}  ${mockOrigin}`);
  console.log(`bare proxy     pid ${bare.pid}  http://127.0.0.1:${bare.port}`);

  let gatewayUrl: string;
  let gatewayPid: number | undefined;
  if (EXTERNAL_GATEWAY) {
    gatewayUrl = EXTERNAL_GATEWAY;
    console.log(`gateway        external (BENCH_GATEWAY_URL)  ${gatewayUrl}`);
  } else {
    const t0 = Date.now();
    const gw = await startGateway();
    gatewayUrl = gw.url;
    gatewayPid = gw.pid;
    console.log(`gateway        pid ${gw.pid}  ${gw.url}  (healthy after ${Date.now() - t0} ms, log: .bench/gateway.log)`);
  }

  const plain = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };
  const targets: Target[] = [
    { name: 'direct', url: `${mockOrigin}/v1/chat/completions`, headers: plain, pid: mock.pid },
    { name: 'bare-proxy', url: `http://127.0.0.1:${bare.port}/v1/chat/completions`, headers: plain, pid: bare.pid },
    {
      name: 'gateway',
      url: `${gatewayUrl}/v1/chat/completions`,
      headers: {
        ...plain,
        'x-gateway-api-key': ADMIN_KEY,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': `${mockOrigin}/v1`,
      },
      ...(gatewayPid === undefined ? {} : { pid: gatewayPid }),
    },
  ];

  if (WITH_NOLOG) {
    const gateway = targets.find((t) => t.name === 'gateway')!;
    const nolog = await startGateway('gateway-nolog', { GATEWAY_REQUEST_LOG: 'off' });
    console.log(`gateway-nolog  pid ${nolog.pid}  ${nolog.url}  (GATEWAY_REQUEST_LOG=off, log: .bench/gateway-nolog.log)`);
    targets.push({ ...gateway, name: 'gateway-nolog', url: `${nolog.url}/v1/chat/completions`, pid: nolog.pid });
  }

  if (WITH_WORKERS) {
    const gateway = targets.find((t) => t.name === 'gateway')!;
    const workers = await startGateway('gateway-workers', { GATEWAY_WORKERS: String(WORKERS) });
    console.log(`gateway-workers pid ${workers.pid}  ${workers.url}  (GATEWAY_WORKERS=${WORKERS}, log: .bench/gateway-workers.log)`);
    targets.push({ ...gateway, name: 'gateway-workers', url: `${workers.url}/v1/chat/completions`, pid: workers.pid });
  }

  let policies: BenchPolicies | undefined;
  if (WITH_POLICIES) {
    const gateway = targets.find((t) => t.name === 'gateway')!;
    targets.push({ ...gateway, name: 'gateway+policies' });
    policies = await benchPolicies(gatewayUrl, ADMIN_KEY, (why) => new BenchError(why));
  }

  console.log('\nsmoke check (one non-streaming and one streaming request per target):');
  for (const t of targets) {
    if (t.name !== 'gateway+policies') await smokeCheck(t);
    else await withPolicies(policies!, () => smokeCheck(t));
  }
  if (policies) {
    const gateway = targets.find((t) => t.name === 'gateway')!;
    await policies.verify(async () => {
      const res = await fetch(gateway.url, { method: 'POST', headers: gateway.headers, body: BODIES['non-stream'], signal: AbortSignal.timeout(15_000) });
      return { status: res.status, text: await res.text() };
    });
    console.log(`  ok  both policies apply to the bench key ${policies.keyId} (each refused a request at a limit of one)`);
  }

  const gatewayIdleRss = gatewayPid === undefined ? null : procStatusKiB(gatewayPid, 'VmRSS');
  const runs: RunResult[] = [];
  console.log('\nruns:');
  // Targets are interleaved per (connections, mode) so the runs being compared sit close together in time and
  // drift in background load skews the ratios less.
  for (const connections of CONNECTIONS) {
    for (const mode of MODES) {
      for (const target of targets) {
        const r = target.name === 'gateway+policies' ? await withPolicies(policies!, () => measure(target, connections, mode)) : await measure(target, connections, mode);
        runs.push(r);
        const bad = r.non2xx + r.errors + r.timeouts > 0 ? `  !! non2xx ${r.non2xx} errors ${r.errors} timeouts ${r.timeouts}` : '';
        console.log(
          `  ${target.name.padEnd(16)} c=${String(connections).padEnd(3)} ${mode.padEnd(10)} ` +
            `${r.requestsPerSec.toFixed(0).padStart(7)} req/s  p50 ${r.latencyP50Ms.toFixed(2)} ms  p99 ${r.latencyP99Ms.toFixed(2)} ms${bad}`,
        );
        await sleep(300);
      }
    }
  }

  // one connection, one request at a time: what the gateway adds to a lone client's latency, with the request log
  // and (when the policies target runs) a rate limits and a usage limits policy on
  let latency: ReturnType<typeof addedLatency> = [];
  if (LATENCY_REQUESTS > 0) {
    const pick = (name: string): LatencyTarget => {
      const target = targets.find((t) => t.name === name)!;
      return { name: target.name, url: target.url, headers: target.headers };
    };
    const gatewayName = policies ? 'gateway+policies' : 'gateway';
    const probe = () => measureLatency([pick('direct'), pick('bare-proxy'), pick(gatewayName)], { json: BODIES['non-stream'], stream: BODIES.stream }, { requests: LATENCY_REQUESTS, warmup: 200 });
    const measured = policies ? await withPolicies(policies, probe) : await probe();
    latency = [...addedLatency(measured, gatewayName, 'direct'), ...addedLatency(measured, gatewayName, 'bare-proxy')];
    console.log(`\nlatency at 1 connection (${LATENCY_REQUESTS} requests each; JSON: the whole answer, stream: the first token):\n`);
    console.log(table(['target', 'mode', 'p50 ms', 'p99 ms'], measured.map((r) => [r.target, r.mode, r.p50Ms.toFixed(3), r.p99Ms.toFixed(3)]), 2));
    console.log('');
    console.log(table(['added by', 'over', 'mode', 'p50 ms', 'p99 ms'], latency.map((x) => [x.target, x.reference, x.mode, x.addedP50Ms, x.addedP99Ms]), 3));
  }

  const memory = {
    gateway:
      gatewayPid === undefined
        ? null
        : {
            idleRssMiB: mib(gatewayIdleRss),
            peakRssMiB: mib(procStatusKiB(gatewayPid, 'VmHWM')),
            maxSampledRssMiB: Math.max(...runs.filter((r) => r.target === 'gateway').map((r) => r.targetMaxRssMiB ?? 0)) || null,
          },
    bareProxy: { peakRssMiB: mib(procStatusKiB(bare.pid, 'VmHWM')) },
    mockUpstream: { peakRssMiB: mib(procStatusKiB(mock.pid, 'VmHWM')) },
  };
  const rat = ratios(runs, CONNECTIONS);
  const order = (r: RunResult): number => targets.findIndex((t) => t.name === r.target);
  runs.sort((a, b) => order(a) - order(b) || a.connections - b.connections || MODES.indexOf(a.mode) - MODES.indexOf(b.mode));

  console.log('\nresults (req/s = autocannon mean of per-second samples; latency is time to the full response):\n');
  console.log(
    table(
      ['target', 'conns', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'non2xx', 'errors', 'target CPU%', 'CPU µs/req', 'loadgen CPU%', 'max RSS MiB'],
      runs.map((r) => [
        r.target,
        r.connections,
        r.mode,
        r.requestsPerSec.toFixed(0),
        r.latencyP50Ms.toFixed(2),
        r.latencyP99Ms.toFixed(2),
        r.non2xx,
        r.errors + r.timeouts,
        r.targetCpuPct,
        r.targetCpuUsPerRequest,
        r.loadgenCpuPct,
        r.targetMaxRssMiB,
      ]),
      3,
    ),
  );
  console.log('\nratios:\n');
  console.log(
    table(
      ['conns', 'mode', 'gw/bare req/s', 'gw-bare p99 ms', 'gw-bare p50 ms', 'gw/direct req/s'],
      rat.map((x) => [x.connections, x.mode, x.gatewayOverBareRps, x.gatewayMinusBareP99Ms, x.gatewayMinusBareP50Ms, x.gatewayOverDirectRps]),
      2,
    ),
  );
  const withLimits = policyRatios(runs, CONNECTIONS);
  if (withLimits.length > 0) {
    console.log('\npolicies (one rate limits policy and one usage limits policy on the bench key, vs none; target >= 0.9):\n');
    console.log(
      table(
        ['conns', 'mode', 'gw+policies/gw req/s', 'gw+policies-gw p50 ms', 'gw+policies-gw p99 ms'],
        withLimits.map((x) => [x.connections, x.mode, x.policiesOverGatewayRps, x.policiesMinusGatewayP50Ms, x.policiesMinusGatewayP99Ms]),
        2,
      ),
    );
  }
  const logging = loggingRatios(runs, CONNECTIONS);
  if (logging.length > 0) {
    console.log('\nrequest log (the gateway storing every row with its bodies, vs a gateway with GATEWAY_REQUEST_LOG=off; target >= 0.9):\n');
    console.log(
      table(
        ['conns', 'mode', 'gw/gw-nolog req/s', 'gw-nolog p50 ms', 'gw-nolog p99 ms', 'gw CPU%', 'gw-nolog CPU%'],
        logging.map((x) => [x.connections, x.mode, x.loggedOverUnloggedRps, x.loggedMinusUnloggedP50Ms, x.loggedMinusUnloggedP99Ms, x.loggedCpuPct, x.unloggedCpuPct]),
        2,
      ),
    );
  }
  const scaling = workerScaling(runs, CONNECTIONS);
  if (scaling.length > 0) {
    console.log(`\nworkers (GATEWAY_WORKERS=${WORKERS} against one process; the load generator and the mock share this machine's cores):\n`);
    console.log(
      table(
        ['conns', 'mode', '1 process req/s', `${WORKERS} workers req/s`, 'scaling', '1 process µs/req', `${WORKERS} workers µs/req`],
        scaling.map((x) => [x.connections, x.mode, x.oneRps, x.manyRps, x.scaling, x.oneCpuUs, x.manyCpuUs]),
        2,
      ),
    );
  }
  for (const x of rat.filter((x) => x.connections === 16)) {
    console.log(
      `\nheadline (16 connections, ${x.mode}): gateway/bare-proxy throughput ${x.gatewayOverBareRps ?? '-'}, ` +
        `p99 gateway - bare proxy ${x.gatewayMinusBareP99Ms ?? '-'} ms, gateway/direct throughput ${x.gatewayOverDirectRps ?? '-'}`,
    );
  }
  console.log(
    `\nmemory: gateway ${memory.gateway ? `idle ${memory.gateway.idleRssMiB} MiB, peak (VmHWM) ${memory.gateway.peakRssMiB} MiB` : 'n/a (external)'}; ` +
      `bare proxy peak ${memory.bareProxy.peakRssMiB} MiB; mock peak ${memory.mockUpstream.peakRssMiB} MiB`,
  );

  // the request log under the bench's sustained load: every row stored, none dropped (the gateway's own counter)
  const logDrops = gatewayPid === undefined ? null : await requestLogDrops(gatewayUrl);
  if (logDrops !== null) {
    console.log(`\nrequest log: ${logDrops.dropped} rows dropped, ${logDrops.queued} still queued (gateway_request_log_dropped_total, gateway_request_log_queue_depth)`);
  }

  const failures = runs.filter((r) => r.non2xx + r.errors + r.timeouts > 0);
  if (failures.length > 0) {
    console.warn(`\nWARNING: ${failures.length} run(s) had non-2xx responses, errors or timeouts; their figures are suspect.`);
  }

  const results = {
    workers: scaling,
    generatedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, platform: process.platform, node: process.version },
    method: {
      durationSec: DURATION,
      warmupSec: WARMUP,
      connections: [...CONNECTIONS],
      pipelining: 1,
      loadGenerator: 'autocannon (programmatic API) in the orchestrator process; targets are separate child processes',
      requestsPerSec: "autocannon's mean of per-second samples over the measured run",
      latency: "per-response time to the full response (hrtime, from autocannon's 'response' event), 2xx only, nearest-rank percentiles",
      requestBodyBytes: { 'non-stream': Buffer.byteLength(BODIES['non-stream']), stream: Buffer.byteLength(BODIES.stream) },
      gateway: EXTERNAL_GATEWAY ? { external: EXTERNAL_GATEWAY } : { spawned: `node ${startFlags().join(' ')} dist/main.js` },
    },
    runs,
    ratios: rat,
    policies: withLimits,
    requestLog: { ratios: logging, drops: logDrops },
    latencyAtOneConnection: latency,
    memory,
  };
  const outFile = path.join(OUT_DIR, 'results.json');
  fs.writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(ROOT, outFile)}`);
}

main()
  .then(async () => {
    await stopAll();
    process.exit(0);
  })
  .catch(async (err: unknown) => {
    const text = err instanceof BenchError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error(`\nbench failed: ${text}`);
    await stopAll();
    process.exit(1);
  });
