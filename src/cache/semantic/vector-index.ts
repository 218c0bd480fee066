/**
 * In-process vector indexes for the semantic cache. Similarity is cosine: vectors are normalised once when added
 * (and the query once per search), so a score is a plain dot product in [-1, 1].
 *
 * The flat index is exact: a search scores every row. Rows are contiguous in one Float32Array over WebAssembly
 * memory that grows in blocks of rows as the index fills (never all up front), scored in one pass by a SIMD
 * kernel (simd-scan.ts); only rows scoring above the floor reach the metadata filter. The entry count is
 * bounded: adding to a full index evicts the oldest entry (FIFO) or the least recently matched one (LRU).
 */
import { createScanKernel } from './simd-scan.ts';

export interface VectorMatch<Meta> {
  id: string;
  score: number;
  meta: Meta;
}

export interface VectorIndex<Meta> {
  readonly dimensions: number;
  readonly size: number;
  /** Adds or replaces `id`. Throws a RangeError for a vector of the wrong length or with zero norm. */
  add(id: string, vector: Float32Array, meta: Meta): void;
  /**
   * Up to `k` entries scoring at least `minScore`, best first. `accept` filters on the entry's metadata before
   * it counts towards `k` (the semantic cache uses it to stay within one namespace and model).
   */
  search(vector: Float32Array, k: number, minScore: number, accept?: (meta: Meta) => boolean): Array<VectorMatch<Meta>>;
  delete(id: string): boolean;
}

export interface FlatIndex<Meta> extends VectorIndex<Meta> {
  /** bytes of vector memory reserved so far (rows, scores and the query), for metrics and the benchmark */
  readonly memoryBytes: number;
}

export interface FlatIndexOptions {
  dimensions: number;
  /** the most entries held; adding beyond it evicts one */
  capacity: number;
  /** `fifo` evicts the oldest insert; `lru` also counts a returned match as a use. Default `lru`. */
  eviction?: 'fifo' | 'lru';
  /** memory grows this many rows at a time */
  blockRows?: number;
}

/** Scales `source` to unit length into `target`; false for a zero (or non-finite) vector, which has no direction. */
export function normaliseInto(source: Float32Array, target: Float32Array, offset = 0): boolean {
  let sum = 0;
  for (let i = 0; i < source.length; i++) sum += (source[i] as number) * (source[i] as number);
  if (!(sum > 0) || !Number.isFinite(sum)) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < source.length; i++) target[offset + i] = (source[i] as number) * scale;
  return true;
}

const NONE = -1;

export function createFlatIndex<Meta>(options: FlatIndexOptions): FlatIndex<Meta> {
  const { dimensions, capacity } = options;
  if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError('dimensions must be a positive integer');
  if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError('capacity must be a positive integer');
  const lru = (options.eviction ?? 'lru') === 'lru';
  const blockRows = Math.min(options.blockRows ?? 1024, capacity);
  const kernel = createScanKernel(dimensions, capacity);
  let allocatedRows = 0;
  const ids: Array<string | undefined> = [];
  const metas: Array<Meta | undefined> = [];
  const slotOf = new Map<string, number>();
  const free: number[] = [];
  // a doubly linked list over slots, oldest (or least recently used) at `head`: O(1) touch and eviction
  const prev = new Int32Array(capacity).fill(NONE);
  const next = new Int32Array(capacity).fill(NONE);
  let head = NONE;
  let tail = NONE;
  let highWater = 0;

  function unlink(slot: number): void {
    const before = prev[slot] ?? NONE;
    const after = next[slot] ?? NONE;
    if (before === NONE) head = after;
    else next[before] = after;
    if (after === NONE) tail = before;
    else prev[after] = before;
    prev[slot] = NONE;
    next[slot] = NONE;
  }
  function append(slot: number): void {
    prev[slot] = tail;
    next[slot] = NONE;
    if (tail === NONE) head = slot;
    else next[tail] = slot;
    tail = slot;
  }
  function release(slot: number): void {
    const id = ids[slot];
    if (id !== undefined) slotOf.delete(id);
    ids[slot] = undefined;
    metas[slot] = undefined;
    unlink(slot);
    free.push(slot);
  }
  function takeSlot(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    if (highWater < capacity) {
      const slot = highWater++;
      if (slot >= allocatedRows) {
        allocatedRows = Math.min(capacity, allocatedRows + blockRows);
        kernel.ensureRows(allocatedRows);
      }
      return slot;
    }
    release(head);
    return free.pop() ?? NONE;
  }
  function checkLength(vector: Float32Array): void {
    if (vector.length !== dimensions) throw new RangeError(`expected a vector of ${dimensions} dimensions, got ${vector.length}`);
  }

  return {
    dimensions,
    get size() {
      return slotOf.size;
    },
    get memoryBytes() {
      return kernel.floats.byteLength;
    },
    add(id, vector, meta) {
      checkLength(vector);
      // normalised into the query area first: a refused vector must not overwrite the row it would replace
      if (!normaliseInto(vector, kernel.floats, kernel.queryOffset)) throw new RangeError('a zero vector has no direction to compare');
      let slot = slotOf.get(id);
      if (slot === undefined) {
        slot = takeSlot();
        slotOf.set(id, slot);
        ids[slot] = id;
      } else {
        unlink(slot);
      }
      metas[slot] = meta;
      append(slot);
      const { floats } = kernel;
      floats.copyWithin(kernel.rowOffset(slot), kernel.queryOffset, kernel.queryOffset + dimensions);
    },
    search(vector, k, minScore, accept) {
      checkLength(vector);
      if (k <= 0 || slotOf.size === 0 || !normaliseInto(vector, kernel.floats, kernel.queryOffset)) return [];
      kernel.scan(highWater);
      const scores = kernel.floats;
      // the best k so far, kept sorted (k is small: a cache asks for 1)
      const bestSlots: number[] = [];
      const bestScores: number[] = [];
      let floor = minScore;
      for (let slot = 0; slot < highWater; slot++) {
        const score = scores[kernel.scoresOffset + slot] as number;
        // free slots hold stale rows: skipped by id, after the cheap score test
        if (score < floor || ids[slot] === undefined) continue;
        if (accept && !accept(metas[slot] as Meta)) continue;
        let at = bestScores.length;
        while (at > 0 && (bestScores[at - 1] as number) < score) at--;
        bestScores.splice(at, 0, score);
        bestSlots.splice(at, 0, slot);
        if (bestScores.length > k) {
          bestScores.pop();
          bestSlots.pop();
        }
        if (bestScores.length === k) floor = Math.max(minScore, bestScores[k - 1] as number);
      }
      return bestSlots.map((slot, rank) => {
        if (lru) {
          unlink(slot);
          append(slot);
        }
        return { id: ids[slot] as string, score: bestScores[rank] as number, meta: metas[slot] as Meta };
      });
    },
    delete(id) {
      const slot = slotOf.get(id);
      if (slot === undefined) return false;
      release(slot);
      return true;
    },
  };
}
