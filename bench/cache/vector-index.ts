/**
 * Semantic cache index benchmark: `node --import tsx bench/cache/vector-index.ts` (add `--expose-gc` before
 * `--import` for steadier memory figures).
 *
 * For each size (10k, 100k entries) and dimension (256, 1536) it fills a flat index with random unit vectors,
 * each carrying the metadata the semantic cache stores, then times `search(k = 1, minScore = 0.95)` with the
 * cache's namespace/model filter: half the queries are near-duplicates of a stored vector (hits), half random
 * (misses; a flat scan costs the same either way). Prints the mean cost of an add, p50/p99 per search, the hit rate (a check that the
 * near-duplicates are found) and memory: the index's vector memory (WebAssembly, outside the JS heap), the heap
 * it added (ids, metadata, the id map) and the growth of the process's RSS.
 *
 * Each configuration runs in its own child process, so one run's freed memory never hides in another's figures.
 *
 * Env: VECTOR_BENCH_SIZES (default "10000,100000"), VECTOR_BENCH_DIMENSIONS (default "256,1536").
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SemanticEntryMeta } from '../../src/cache/semantic/semantic-cache.ts';
import { createFlatIndex, type FlatIndex } from '../../src/cache/semantic/vector-index.ts';

const sizes = (process.env.VECTOR_BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const dimensionsList = (process.env.VECTOR_BENCH_DIMENSIONS ?? '256,1536').split(',').map(Number);

/** xorshift32: the same vectors on every run, so runs compare */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296 - 0.5;
  };
}

function vector(next: () => number, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] = next();
  return out;
}

/** `base` plus noise of a few percent of its length: cosine ≈ 0.999, well above the 0.95 threshold */
function nearDuplicate(base: Float32Array, next: () => number): Float32Array {
  const out = new Float32Array(base.length);
  for (let i = 0; i < base.length; i++) out[i] = (base[i] ?? 0) + next() * 0.05;
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function memory(): { rss: number; heapUsed: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed };
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

interface Row {
  entries: number;
  dimensions: number;
  addUs: number;
  queries: number;
  p50Ms: number;
  p99Ms: number;
  hitRate: number;
  vectorsMiB: string;
  heapMiB: string;
  rssMiB: string;
}

function run(entries: number, dimensions: number): Row {
  const next = random(entries * 31 + dimensions);
  const before = memory();
  const index: FlatIndex<SemanticEntryMeta> = createFlatIndex({ dimensions, capacity: entries });
  const kept: Float32Array[] = [];
  let addMs = 0;
  for (let i = 0; i < entries; i++) {
    const v = vector(next, dimensions);
    // keep a sample to build near-duplicate queries from; the rest are dropped after being copied in
    if (i % Math.ceil(entries / 500) === 0) kept.push(v);
    const meta = { key: `key-${i}`, namespace: 'bench', model: 'gpt-4o-mini', variant: '', expiresAt: Number.MAX_SAFE_INTEGER };
    const t0 = performance.now();
    index.add(meta.key, v, meta);
    addMs += performance.now() - t0;
  }
  const after = memory();
  // enough queries for a stable p99 without the 100k × 1536 case running for minutes
  const queries = Math.min(1_000, Math.max(60, Math.round(3e9 / (entries * dimensions))));
  const accept = (meta: SemanticEntryMeta) => meta.namespace === 'bench' && meta.model === 'gpt-4o-mini' && meta.expiresAt > 0;
  const timings: number[] = [];
  let hits = 0;
  let hitQueries = 0;
  for (let q = 0; q < queries + 5; q++) {
    const hit = q % 2 === 0;
    const query = hit ? nearDuplicate(kept[q % kept.length] as Float32Array, next) : vector(next, dimensions);
    const t0 = performance.now();
    const found = index.search(query, 1, 0.95, accept);
    const elapsed = performance.now() - t0;
    if (q < 5) continue; // warm-up: let the JIT settle on the scan loop
    timings.push(elapsed);
    if (hit) hitQueries++;
    if (hit && found.length === 1) hits++;
  }
  timings.sort((a, b) => a - b);
  return {
    entries,
    dimensions,
    addUs: Number(((addMs * 1000) / entries).toFixed(1)),
    queries,
    p50Ms: Number(percentile(timings, 50).toFixed(3)),
    p99Ms: Number(percentile(timings, 99).toFixed(3)),
    hitRate: Number((hits / hitQueries).toFixed(3)),
    vectorsMiB: mib(index.memoryBytes),
    heapMiB: mib(after.heapUsed - before.heapUsed),
    rssMiB: mib(after.rss - before.rss),
  };
}

const single = process.env.VECTOR_BENCH_RUN;
if (single) {
  const [entries, dimensions] = single.split('x').map(Number);
  process.stdout.write(`${JSON.stringify(run(entries ?? 0, dimensions ?? 0))}\n`);
} else {
  console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}, load average ${os.loadavg()[0]?.toFixed(1)}`);
  console.log('| index | entries | dimensions | add µs (mean) | search p50 ms | search p99 ms | hit rate | vectors MiB | heap MiB | RSS MiB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const entries of sizes) {
    for (const dimensions of dimensionsList) {
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
        env: { ...process.env, VECTOR_BENCH_RUN: `${entries}x${dimensions}` },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (child.status !== 0) throw new Error(`the ${entries} × ${dimensions} run failed`);
      const row = JSON.parse(child.stdout) as Row;
      const cells = [row.entries, row.dimensions, row.addUs, row.p50Ms, row.p99Ms, row.hitRate, row.vectorsMiB, row.heapMiB, row.rssMiB];
      console.log(`| flat | ${cells.join(' | ')} |`);
    }
  }
}
