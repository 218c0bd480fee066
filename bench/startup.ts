/**
 * Start-up time of the compiled gateway (`node dist/main.js`, as `npm start` runs it): each run starts it on a fresh
 * temporary data dir (so the embedded database is created and migrated from nothing, the slowest start), polls
 * /health every 10 ms and prints the milliseconds from spawn to the first 200, with the CPU time the process used
 * by then (every thread; less sensitive to a busy machine than wall time) and its resident memory. A second start on the same data dir (a restart: database already there) is measured too.
 *
 * Run: node --import tsx bench/startup.ts [runs=3]     (builds dist/ first when it is missing or stale; the node
 *      flags of `npm start`, or BENCH_NODE_FLAGS="..." to try others)
 *      DATABASE_URL=postgres://... node --import tsx bench/startup.ts   (PostgreSQL instead of the embedded default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { COMPILED_MAIN, ensureBuilt, gatewayEnv, ROOT, startFlags } from './build.ts';
import { freePort, spawnChild, startHelper } from './children.ts';

export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** CPU time (user + system, every thread) the process has used, in ms: less sensitive to a busy machine than wall time. */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in clock ticks of 10 ms
}

export interface Started {
  ms: number;
  cpuMs: number;
  rssMiB: number;
  stop(): Promise<void>;
}

/** Starts the compiled gateway and resolves once /health answers 200 (bounded: 60 s). */
export async function startCompiled(dataDir: string, env: Record<string, string> = {}): Promise<Started & { pid: number; port: number }> {
  // the caller builds first (ensureBuilt), once; BENCH_MAIN: another entry point (e.g. an older checkout's src/main.ts
  // with BENCH_NODE_FLAGS="--import tsx ..."), for A/B runs against builds that predate dist/
  const main = process.env.BENCH_MAIN ?? COMPILED_MAIN;
  const port = await freePort();
  const started = performance.now();
  // as `npm start` runs it; BENCH_NODE_FLAGS instead: other node/V8 flags to try ("" for V8's defaults)
  const gateway = spawnChild('gateway', process.execPath, [...startFlags(), main], {
    cpus: 'measured',
    cwd: ROOT,
    // BENCH_GATEWAY_STDOUT: a file for the gateway's stdout (V8's --trace-gc lines, with BENCH_NODE_FLAGS)
    stdio: ['ignore', process.env.BENCH_GATEWAY_STDOUT ? fs.openSync(process.env.BENCH_GATEWAY_STDOUT, 'w') : 'ignore', 'pipe'],
    env: gatewayEnv(port, dataDir, 'startup-bench-admin-key-0123456789', env),
  });
  const child = gateway.proc;
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = () => gateway.stop(15_000); // a graceful shutdown closes the database: a restart measured next opens it clean
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (code ${child.exitCode}): ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) {
        const ms = Math.round(performance.now() - started);
        return { ms, cpuMs: cpuMs(child.pid!), rssMiB: rssMiB(child.pid!), stop, pid: child.pid!, port };
      }
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
  await stop();
  throw new Error(`no healthy /health within 60 s: ${stderr}`);
}

/** The headers of a bench request through the gateway to the mock: the admin key, the openai adapter, the mock as custom host. */
export function benchHeaders(adminKey: string, mockPort: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench',
    'x-gateway-api-key': adminKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': `http://127.0.0.1:${mockPort}/v1`,
  };
}

/** The bench's mock upstream (bench/mock-upstream.ts) in a child process; resolves with its port once it listens. */
export async function startMock(): Promise<{ port: number; stop(): Promise<void> }> {
  const mock = await startHelper('mock-upstream', 'mock-upstream.ts');
  return { port: mock.port, stop: () => mock.stop() };
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  ensureBuilt();
  const target = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite';
  console.log(`start-up to a healthy /health, compiled gateway, ${target}, ${os.cpus().length} cores`);
  const fresh: number[] = [];
  const restart: number[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-startup-'));
    try {
      const first = await startCompiled(dataDir);
      await first.stop();
      const second = await startCompiled(dataDir);
      await second.stop();
      fresh.push(first.ms);
      restart.push(second.ms);
      console.log(
        `run ${run}: fresh data dir ${first.ms} ms (CPU ${first.cpuMs} ms, RSS ${first.rssMiB} MiB); ` +
          `restart ${second.ms} ms (CPU ${second.cpuMs} ms, RSS ${second.rssMiB} MiB)`,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`median: fresh ${median(fresh)} ms, restart ${median(restart)} ms`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
