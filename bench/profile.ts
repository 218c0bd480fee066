/**
 * Where the gateway's CPU goes: starts the compiled gateway with `--cpu-prof` (every thread writes a profile), puts
 * the bench's chat request through it for PROFILE_SECONDS, prints the CPU microseconds per request it used over the
 * load (every thread, from /proc) and, from the main thread's profile, the functions and files with the most self
 * time, GC included.
 *
 * PROFILE_HEAP=1 instead: V8's sampling heap profiler in the main thread (bench/heap-sampler.mjs), counting the objects
 * the GC has already collected too, and the bytes allocated per request by function and by file: what the GC has to
 * clear.
 *
 * Run: node --import tsx bench/profile.ts
 * PROFILE_POLICIES=1: with the bench's rate limits and usage limits policies on the key (bench/policies.ts).
 * PROFILE_OFF=1: no profiler at all, only the CPU per request (A/B runs of two builds or of node flags: startFlags()
 * reads BENCH_NODE_FLAGS).
 * PROFILE_NO_BODIES=1: the requests ask for no bodies in their log rows (`x-gateway-debug: false`): what the bodies cost.
 * Env: PROFILE_SECONDS (default 8), PROFILE_CONNECTIONS (default 16), PROFILE_STREAM=1 (streaming requests),
 *      PROFILE_TOP (rows, default 30), and GATEWAY_* / DATABASE_URL, which pass through to the gateway (for example
 *      GATEWAY_REQUEST_LOG=off). The profiles stay in .bench/profile/ (open them in Chrome's DevTools or speedscope).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ensureBuilt, ROOT, startFlags } from './build.ts';
import { cpuPlan } from './cpu-pinning.ts';
import { benchPolicies } from './policies.ts';
import { makeChatRequest } from './shared.ts';
import { benchHeaders, cpuMs, startCompiled, startMock } from './startup.ts';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 16);
const STREAM = process.env.PROFILE_STREAM === '1';
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const OUT = path.join(ROOT, '.bench', 'profile');
const ADMIN_KEY = 'startup-bench-admin-key-0123456789'; // what startCompiled provisions
const HEAP = process.env.PROFILE_HEAP === '1' || process.env.PROFILE_HEAP === 'retained';
/** PROFILE_OFF=1: no profiler, only the CPU per request (for A/B runs of node flags or builds) */
const OFF = process.env.PROFILE_OFF === '1';
/** PROFILE_POLICIES=1: the bench's rate limits and usage limits policies apply to the key (bench/policies.ts) */
const POLICIES = process.env.PROFILE_POLICIES === '1';
/** PROFILE_NO_BODIES=1: requests ask for no bodies in their log rows (`x-gateway-debug: false`) */
const NO_BODIES = process.env.PROFILE_NO_BODIES === '1';
const HEAP_FILE = path.join(OUT, 'main.heapprofile');
const HEAP_START = path.join(OUT, 'heap-start');
const HEAP_STOP = path.join(OUT, 'heap-stop');
/** PROFILE_HEAP=retained: the objects still in the heap one second before the load ends (survivors, promoted garbage) */
const RETAINED = process.env.PROFILE_HEAP === 'retained';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** CPU ms per thread of the process: `main`, and the others by thread id (node names them all "node"). */
function threadCpu(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const key = tid === String(pid) ? 'main' : `${name}:${tid}`;
      threads.set(key, (threads.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}


/** Self time per function and per file, in ms, from the samples (each sample's time delta goes to its node). */
function selfTimes(profile: Profile, skipMs: number): { total: number; functions: Map<string, number>; files: Map<string, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    elapsed += ms;
    if (elapsed < skipMs) return; // start-up and warm-up
    const frame = byId.get(id)!.callFrame;
    const file = frame.url ? frame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, 'node_modules/') : '';
    total += ms;
    const fn = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    const fileKey = file ? file.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*$/, '$1') : `(${frame.functionName})`;
    files.set(fileKey, (files.get(fileKey) ?? 0) + ms);
  });
  return { total, functions, files };
}

function printTop(title: string, entries: Map<string, number>, busy: number): void {
  console.log(`\n${title} (share of the thread's busy time)`);
  const rows = [...entries].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [name, ms] of rows) console.log(`${((ms / busy) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
}

/** Bytes allocated per request by function and by file, from the sampling heap profile's tree. */
function printHeap(requests: number): void {
  const root = (JSON.parse(fs.readFileSync(HEAP_FILE, 'utf8')) as { head: HeapNode }).head;
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode): void => {
    const frame = node.callFrame;
    const file = frame.url ? frame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, 'node_modules/') : '';
    const fn = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + node.selfSize);
    const fileKey = file ? file.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*$/, '$1') : `(${frame.functionName})`;
    files.set(fileKey, (files.get(fileKey) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(visit);
  };
  visit(root);
  console.log(
    RETAINED
      ? `main thread: ~${Math.round(total / 1024)} KiB still in the heap (live or not yet collected) 1 s before the load ended, of what was allocated during it; per request of the run:`
      : `main thread allocated ~${Math.round(total / requests)} bytes per request (sampled every 4 KiB)`,
  );
  for (const [title, entries] of [['by function', functions], ['by file or package', files]] as const) {
    console.log(`\nallocations ${title} (bytes per request)`);
    for (const [name, bytes] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(`${String(Math.round(bytes / requests)).padStart(7)}  ${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
    }
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const profiler = OFF ? [] : HEAP ? ['--import', path.join(ROOT, 'bench', 'heap-sampler.mjs')] : ['--cpu-prof', `--cpu-prof-dir=${OUT}`];
  process.env.BENCH_NODE_FLAGS = [...startFlags(), ...profiler].join(' ');
  console.log(`CPU pinning: ${cpuPlan().why}`);
  const mock = await startMock();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-profile-'));
  const spawnedAt = performance.now();
  const gateway = await startCompiled(dataDir, { GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1', HEAP_PROFILE_FILE: HEAP_FILE, HEAP_PROFILE_START: HEAP_START, HEAP_PROFILE_STOP: HEAP_STOP, HEAP_PROFILE_RETAINED: RETAINED ? '1' : '' });
  let requests = 0;
  let measuredFromMs = 0; // since the process started: what comes before is start-up and warm-up
  try {
    const headers = { ...benchHeaders(ADMIN_KEY, mock.port), ...(NO_BODIES ? { 'x-gateway-debug': 'false' } : {}) };
    const options = { url: `http://127.0.0.1:${gateway.port}/v1/chat/completions`, method: 'POST' as const, headers, body: JSON.stringify(makeChatRequest(STREAM)), connections: CONNECTIONS };
    if (POLICIES) await (await benchPolicies(`http://127.0.0.1:${gateway.port}`, ADMIN_KEY, (why) => new Error(why))).enable();
    await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pools, caches
    fs.writeFileSync(HEAP_START, '');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the sampler polls for the file every 50 ms
    measuredFromMs = performance.now() - spawnedAt;
    const before = cpuMs(gateway.pid);
    const threadsBefore = threadCpu(gateway.pid);
    const stopTimer = setTimeout(() => fs.writeFileSync(HEAP_STOP, ''), (SECONDS - 1) * 1000);
    const result = await autocannon({ ...options, duration: SECONDS });
    clearTimeout(stopTimer);
    const used = cpuMs(gateway.pid) - before;
    const threadsAfter = threadCpu(gateway.pid);
    requests = result.requests.total;
    const perThread = [...threadsAfter]
      .map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${((ms * 1000) / requests).toFixed(0)}`);
    console.log(`CPU µs per request by thread: ${perThread.join(', ')}`);
    console.log(
      `${STREAM ? 'stream' : 'non-stream'}, ${CONNECTIONS} connections, ${SECONDS} s: ${requests} requests (${result.non2xx} non-2xx, ${result.errors} errors), ` +
        `${Math.round(result.requests.average)} req/s, CPU ${((used * 1000) / requests).toFixed(0)} µs per request (every thread)`,
    );
  } finally {
    await gateway.stop();
    await mock.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (OFF) return;
  if (HEAP) return printHeap(requests);
  const files = fs.readdirSync(OUT).filter((file) => file.endsWith('.cpuprofile'));
  const profiles = files.map((file) => ({ file, profile: JSON.parse(fs.readFileSync(path.join(OUT, file), 'utf8')) as Profile }));
  // the main thread's profile is the one with the most samples
  profiles.sort((a, b) => b.profile.samples.length - a.profile.samples.length);
  for (const { file, profile } of profiles) {
    const { total, functions } = selfTimes(profile, measuredFromMs);
    const idle = [...functions].filter(([name]) => name.startsWith('(idle)')).reduce((sum, [, ms]) => sum + ms, 0);
    console.log(`${file}: ${total.toFixed(0)} ms sampled under the measured load, ${(total - idle).toFixed(0)} ms busy`);
  }
  const main = profiles[0];
  if (!main) return;
  const { total, functions, files: byFile } = selfTimes(main.profile, measuredFromMs);
  const idle = [...functions].filter(([name]) => name.startsWith('(idle)')).reduce((sum, [, ms]) => sum + ms, 0);
  functions.delete('(idle)');
  byFile.delete('((idle))');
  printTop('main thread: self time by function', functions, total - idle);
  printTop('main thread: self time by file or package', byFile, total - idle);
}

await main();
