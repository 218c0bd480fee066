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
 *   BENCH_PIN           auto (default: on a machine of 4 CPUs or more, the load generator and the mock on the first
 *                       CPUs, the processes measured on the others; bench/cpu-pinning.ts), on (from 2 CPUs), off
 *   BENCH_WORKERS       server processes of the `gateway-workers` target (GATEWAY_WORKERS; default: the number of
 *                       cores; 1 skips it), compared with the one-process `gateway` in the "workers" section
 * Its parts: children.ts (every child in a process group of its own, stopped by it whatever ends the run),
 * gateways.ts (the gateway processes), measure.ts (smoke check and measured runs), proc-stats.ts (CPU and memory
 * from /proc), report.ts (the tables), comparisons.ts (the ratios). See docs/performance.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, ROOT, startEnv, startFlags } from './build.ts';
import { BenchError, sleep, startHelper, stopAll } from './children.ts';
import { MODES, ratios, table, type RunResult } from './comparisons.ts';
import { cpuPlan } from './cpu-pinning.ts';
import { OUT_DIR, startGateway } from './gateways.ts';
import { addedLatency, measureLatency, type LatencyTarget } from './latency.ts';
import { BODIES, measure, smokeCheck, type Target } from './measure.ts';
import { benchPolicies, type BenchPolicies } from './policies.ts';
import { mib, procStatusKiB } from './proc-stats.ts';
import { printResults } from './report.ts';

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
const LENGTH = { warmup: WARMUP, duration: DURATION };
const EXTERNAL_GATEWAY = process.env.BENCH_GATEWAY_URL?.replace(/\/+$/, '') || undefined;
const WITH_POLICIES = process.env.BENCH_POLICIES !== '0' && !EXTERNAL_GATEWAY;
const WITH_NOLOG = process.env.BENCH_NOLOG !== '0' && !EXTERNAL_GATEWAY;
const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 2000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? os.availableParallelism());
const WITH_WORKERS = Number.isInteger(WORKERS) && WORKERS > 1 && !EXTERNAL_GATEWAY;

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
  console.log(`CPU pinning: ${cpuPlan().why}`);
  console.log(`request body: ${Buffer.byteLength(BODIES['non-stream'])} bytes\n`);

  const mock = await startHelper('mock-upstream', 'mock-upstream.ts');
  const mockOrigin = `http://127.0.0.1:${mock.port}`;
  const bare = await startHelper('bare-proxy', 'bare-proxy.ts', [mockOrigin], 'measured');
  console.log(`mock upstream  pid ${mock.pid}  ${mockOrigin}`);
  console.log(`bare proxy     pid ${bare.pid}  http://127.0.0.1:${bare.port}`);

  let gatewayUrl: string;
  let gatewayPid: number | undefined;
  if (EXTERNAL_GATEWAY) {
    gatewayUrl = EXTERNAL_GATEWAY;
    console.log(`gateway        external (BENCH_GATEWAY_URL)  ${gatewayUrl}`);
  } else {
    ensureBuilt(); // before the clock: a stale dist/ is rebuilt here, and the build is not start-up time
    const t0 = Date.now();
    const gw = await startGateway('gateway', ADMIN_KEY);
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
    const nolog = await startGateway('gateway-nolog', ADMIN_KEY, { GATEWAY_REQUEST_LOG: 'off' });
    console.log(`gateway-nolog  pid ${nolog.pid}  ${nolog.url}  (GATEWAY_REQUEST_LOG=off, log: .bench/gateway-nolog.log)`);
    targets.push({ ...gateway, name: 'gateway-nolog', url: `${nolog.url}/v1/chat/completions`, pid: nolog.pid });
  }

  if (WITH_WORKERS) {
    const gateway = targets.find((t) => t.name === 'gateway')!;
    const workers = await startGateway('gateway-workers', ADMIN_KEY, { GATEWAY_WORKERS: String(WORKERS) });
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
        const r = target.name === 'gateway+policies' ? await withPolicies(policies!, () => measure(target, connections, mode, LENGTH)) : await measure(target, connections, mode, LENGTH);
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

  const { withLimits, logging, scaling } = printResults(runs, rat, CONNECTIONS, WORKERS);
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
      cpuPinning: cpuPlan().plan,
      pipelining: 1,
      loadGenerator: 'autocannon (programmatic API) in the orchestrator process; targets are separate child processes',
      requestsPerSec: "autocannon's mean of per-second samples over the measured run",
      latency: "per-response time to the full response (hrtime, from autocannon's 'response' event), 2xx only, nearest-rank percentiles",
      requestBodyBytes: { 'non-stream': Buffer.byteLength(BODIES['non-stream']), stream: Buffer.byteLength(BODIES.stream) },
      gateway: EXTERNAL_GATEWAY ? { external: EXTERNAL_GATEWAY } : { spawned: [...Object.entries(startEnv()).map(([name, value]) => `${name}=${value}`), 'node', ...startFlags(), 'dist/main.js'].join(' ') },
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
