/**
 * Resident memory of the compiled gateway (`node dist/main.js`; its PGlite worker thread shares the process's RSS):
 * at boot, under load (non-streaming then streaming chat completions through the gateway to the bench's mock
 * upstream, 16 connections, request log on) and idle again afterwards. Prints RSS (VmRSS) at each step and the
 * peak (VmHWM), the V8 heap from the gateway's own /metrics when it exposes it.
 *
 * Run: node --import tsx bench/memory.ts                      (embedded PGlite on a fresh temp data dir)
 *      DATABASE_URL=postgres://postgres@127.0.0.1:5432/<fresh db> node --import tsx bench/memory.ts
 * Env: MEMORY_LOAD_SECONDS (per mode, default 15), MEMORY_CONNECTIONS (default 16), MEMORY_IDLE_SECONDS (the idle
 *      after the load, watched every 10 s; default 10; when longer, the same idle is watched after the boot too, before
 *      the load), and GATEWAY_* / NODE_OPTIONS,
 *      which pass through to the gateway; BENCH_NODE_FLAGS="..." replaces the node flags of `npm start` (e.g.
 *      BENCH_NODE_FLAGS="" for V8's defaults).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { ensureBuilt } from './build.ts';
import { makeChatRequest } from './shared.ts';
import { benchHeaders, startCompiled, startMock } from './startup.ts';

const LOAD_SECONDS = Number(process.env.MEMORY_LOAD_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.MEMORY_CONNECTIONS ?? 16);
const SOAK_SECONDS = Number(process.env.MEMORY_SOAK_SECONDS ?? 0);
/** how long the idle after the load is watched, RSS printed every 10 s (default 10) */
const IDLE_SECONDS = Number(process.env.MEMORY_IDLE_SECONDS ?? 10);
const ADMIN_KEY = 'startup-bench-admin-key-0123456789'; // what startCompiled provisions

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}


/** Samples VmRSS every 100 ms while `work` runs; returns the highest sample. */
async function sampled(pid: number, work: () => Promise<unknown>): Promise<number> {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, status(pid, 'VmRSS'))), 100);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(max, status(pid, 'VmRSS'));
}

async function load(url: string, headers: Record<string, string>, stream: boolean): Promise<{ requests: number; non2xx: number; errors: number }> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers,
    body: JSON.stringify(makeChatRequest(stream)),
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
  });
  return { requests: result.requests.total, non2xx: result.non2xx, errors: result.errors };
}

/**
 * MEMORY_SOAK_SECONDS: load for that long (non-stream and stream in turns of 30 s), RSS sampled each turn, then the
 * slope of a least-squares line through the samples after the first two minutes (MiB per minute), and the RSS every
 * 10 s of the idle after it (30 s, or MEMORY_IDLE_SECONDS).
 */
async function soak(pid: number, url: string, headers: Record<string, string>): Promise<void> {
  const started = performance.now();
  const samples: Array<{ minute: number; rss: number }> = [];
  let requests = 0;
  for (let turn = 0; performance.now() - started < SOAK_SECONDS * 1000; turn += 1) {
    const result = await autocannon({ url, method: 'POST', headers, body: JSON.stringify(makeChatRequest(turn % 2 === 1)), connections: CONNECTIONS, duration: 30 });
    requests += result.requests.total;
    const minute = (performance.now() - started) / 60_000;
    samples.push({ minute, rss: status(pid, 'VmRSS') });
    console.log(`soak ${minute.toFixed(1)} min: RSS ${samples.at(-1)!.rss} MiB (${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`);
  }
  const settled = samples.filter((sample) => sample.minute >= 2);
  const n = settled.length;
  const meanX = settled.reduce((sum, sample) => sum + sample.minute, 0) / n;
  const meanY = settled.reduce((sum, sample) => sum + sample.rss, 0) / n;
  const slope = settled.reduce((sum, sample) => sum + (sample.minute - meanX) * (sample.rss - meanY), 0) / settled.reduce((sum, sample) => sum + (sample.minute - meanX) ** 2, 0);
  console.log(`soak: ${requests} requests; RSS slope after the first 2 minutes ${slope.toFixed(2)} MiB/min over ${n} samples; peak (VmHWM) ${status(pid, 'VmHWM')} MiB`);
  for (let idle = 10; idle <= Math.max(30, IDLE_SECONDS); idle += 10) {
    await sleep(10_000);
    console.log(`idle ${idle} s after the soak: RSS ${status(pid, 'VmRSS')} MiB`);
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  const target = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
  console.log(`resident memory of the compiled gateway, ${target}, ${CONNECTIONS} connections, ${LOAD_SECONDS} s per mode`);
  const mock = await startMock();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-memory-'));
  const gateway = await startCompiled(dataDir, { GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1', ...(process.env.BENCH_GATEWAY_STDOUT ? { LOG_LEVEL: 'info' } : {}) });
  try {
    const origin = `http://127.0.0.1:${gateway.port}`;
    console.log(`healthy after ${gateway.ms} ms: RSS ${gateway.rssMiB} MiB`);
    await sleep(3000); // boot settles: background start-up work (caches, first log flush)
    const boot = status(gateway.pid, 'VmRSS');
    console.log(`boot (idle 3 s):       RSS ${boot} MiB`);
    // the same idle before any load as after it: V8 gives memory back only after some time without work
    let bootIdle = boot;
    for (let idle = 10; IDLE_SECONDS > 10 && idle <= IDLE_SECONDS; idle += 10) {
      await sleep(10_000);
      bootIdle = status(gateway.pid, 'VmRSS');
      console.log(`idle ${idle} s after boot:  RSS ${bootIdle} MiB`);
    }
    const headers = benchHeaders(ADMIN_KEY, mock.port);
    const url = `${origin}/v1/chat/completions`;
    const smoke = await fetch(url, { method: 'POST', headers, body: JSON.stringify(makeChatRequest(false)) });
    if (smoke.status !== 200) throw new Error(`smoke request: ${smoke.status} ${await smoke.text()}`);
    if (SOAK_SECONDS > 0) {
      await soak(gateway.pid, url, headers);
      return;
    }
    for (const stream of [false, true]) {
      let counts = { requests: 0, non2xx: 0, errors: 0 };
      const peak = await sampled(gateway.pid, async () => (counts = await load(url, headers, stream)));
      console.log(
        `load ${stream ? 'stream    ' : 'non-stream'}:       RSS max ${peak} MiB  (${counts.requests} requests, ${counts.non2xx} non-2xx, ${counts.errors} errors)`,
      );
    }
    let loadIdle = 0;
    for (let idle = 10; idle <= Math.max(10, IDLE_SECONDS); idle += 10) {
      await sleep(10_000);
      loadIdle = status(gateway.pid, 'VmRSS');
      console.log(`idle ${idle} s after load:  RSS ${loadIdle} MiB`);
    }
    if (IDLE_SECONDS > 10) console.log(`after ${IDLE_SECONDS} s idle: ${bootIdle} MiB before the load, ${loadIdle} after it (${(loadIdle - bootIdle).toFixed(1)} MiB)`);
    console.log(`peak (VmHWM):          ${status(gateway.pid, 'VmHWM')} MiB`);
  } finally {
    await gateway.stop();
    await mock.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
