/**
 * The heap given back when the process goes idle after work. V8 shrinks its heap by itself once the process stops
 * allocating (its memory reducer), but only after 60 to more than 120 s: in one run a gateway on PostgreSQL that
 * served load stayed 46 MiB above its own idle for the two minutes watched (docs/performance.md, fourteenth session).
 * Here, once the process has used less than 1% of a core for `idleMs` after it was busy, it runs one full collection
 * of the kind V8 runs when memory is short (compacting, releasing empty old-generation pages; the young generation
 * stays committed): 7-19 ms of CPU in the runs measured, once per busy period, when nothing else is running. It gave
 * back 0 to 32 MiB there; V8's own reducer, when it runs later, can give back more.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export interface IdleMemoryOptions {
  /** this long under 1% of a core after a busy period: the heap is collected (the check runs every third of it) */
  idleMs: number;
  /** CPU used since the last collection that makes a busy period, µs (default 2 s) */
  busyCpuUs?: number;
  /** the process's CPU time so far, µs (default process.cpuUsage(): every thread) */
  cpuUs?: () => number;
  /** the collection (default fullCollection()) */
  collect?: () => void;
  onCollect?: (details: { ms: number; rssBefore: number; rssAfter: number }) => void;
}

/**
 * V8's full collection with its memory-reducing flavour, without exposing `gc` to the rest of the process: the flag
 * is on only while a new context takes the function.
 */
export function fullCollection(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  v8.setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

function processCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** `check` is what the timer runs (exposed for tests). */
export function releaseMemoryWhenIdle(options: IdleMemoryOptions): { stop(): void; check(): void } {
  const cpuUs = options.cpuUs ?? processCpuUs;
  const collect = options.collect ?? fullCollection();
  const busyCpuUs = options.busyCpuUs ?? 2_000_000;
  const everyMs = Math.max(10, Math.floor(options.idleMs / 3));
  // CPU readings of the last idleMs, oldest first, and the CPU time of the last collection
  const samples: Array<{ at: number; cpu: number }> = [];
  let collectedAt = cpuUs();
  const check = () => {
    const now = performance.now();
    const cpu = cpuUs();
    samples.push({ at: now, cpu });
    while (samples.length > 1 && now - samples[1]!.at >= options.idleMs) samples.shift();
    const oldest = samples[0]!;
    const watchedMs = now - oldest.at;
    if (watchedMs < options.idleMs || cpu - collectedAt < busyCpuUs) return;
    // under 1% of a core: 10 µs of CPU a ms
    if (cpu - oldest.cpu >= watchedMs * 10) return;
    const rssBefore = process.memoryUsage.rss();
    collect();
    options.onCollect?.({ ms: Math.round(performance.now() - now), rssBefore, rssAfter: process.memoryUsage.rss() });
    collectedAt = cpuUs();
  };
  const timer = setInterval(check, everyMs).unref();
  return { stop: () => clearInterval(timer), check };
}
