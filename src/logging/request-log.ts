/**
 * The request-log writer: requests hand it a finished row and move on; rows wait in a bounded in-memory queue and
 * reach the database in batches (one multi-row INSERT each), every `flushIntervalMs` or as soon as `batchSize`
 * rows are waiting. Nothing here runs on a request's path but `write()`, which only enqueues.
 *
 * Invariants: the queue never holds more than `maxQueue` rows nor, beyond its newest row, more than `maxBytes` of
 * them (when full, the oldest rows are dropped, counted and logged); one flush runs at a time; nothing is ever
 * thrown at a caller. When the database cannot take a batch
 * (it is down, unreachable, restarting), the batch goes back to the head of the queue and is retried with a
 * growing delay: rows wait in memory, within the bound, until the database is back. A batch the database refuses
 * for its data is written row by row, and only the rows it refuses are dropped. `close()` writes whatever is
 * queued (retrying for up to `closeTimeoutMs` while the database is away), so a clean shutdown loses nothing.
 * Every row leaves through `release` exactly once (written, refused, dropped or left at close), after the last
 * statement that carried it has settled.
 */
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

export type DropReason = 'queue_full' | 'write_failed' | 'closed';

/** A timer the writer can be tested with: `set` returns a handle that `clear` cancels. */
export interface WriterTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface RequestLogDeps<Queued = NewRequestLogRow> {
  /**
   * what a row waits in the queue as (the store's serialised form: one flat string is far cheaper for the garbage
   * collector to hold than the row's object graph); the row itself when absent
   */
  prepare?: (row: NewRequestLogRow) => Queued;
  /** writes one batch with one INSERT (storage/repositories/request-logs.ts) */
  insert: (rows: readonly Queued[]) => Promise<void>;
  /**
   * rows leaving the writer for good (written, refused or dropped), each once, after their last `insert` has
   * settled: the store reuses their memory (storage/record-slabs.ts)
   */
  release?: (rows: readonly Queued[]) => void;
  logger: { error(details: Record<string, unknown>, message: string): void };
  /** counts dropped rows (gateway_request_log_dropped_total) */
  dropped?: { inc(labels: { reason: DropReason }, value: number): void };
  timers?: WriterTimers;
  /**
   * rows per INSERT, and the queue length that triggers a flush at once (default 200). Each statement also merges
   * the batch into the analytics rollups, a cost per statement: larger batches pay it less often, but the embedded
   * database's WebAssembly memory grows to the largest statement it has run and never shrinks: 500-row batches
   * (3 MB of JSON with bodies) put the embedded gateway's peak RSS at ~380 MiB, 200-row ones at ~330, for the same
   * throughput (docs/performance.md; batches were JSON then, binary records now). PGlite runs the statement in its
   * worker thread, so only encoding the rows and writing the batch's message is on this thread
   */
  batchSize?: number;
  /** longest time a row waits in the queue when traffic is light (default 1,000 ms) */
  flushIntervalMs?: number;
  /** rows held at most (GATEWAY_LOG_BUFFER_ROWS); past it the oldest is dropped (default 50,000) */
  maxQueue?: number;
  /**
   * bytes of queued rows held at most (GATEWAY_LOG_BUFFER_BYTES, by `sizeOf`); past it the oldest are dropped
   * (default: no bound). Rows with their bodies are up to ~130 KB each: the row bound alone would let an outage hold
   * gigabytes
   */
  maxBytes?: number;
  sizeOf?: (row: Queued) => number;
  /** first retry delay while the database is away, doubled per failure up to `maxRetryMs` (defaults 250 and 5,000) */
  retryMs?: number;
  maxRetryMs?: number;
  /** how long close() keeps retrying while the database is away before it drops what is left (default 10,000) */
  closeTimeoutMs?: number;
  now?: () => number;
}

export interface RequestLogWriter {
  /** enqueues a row; never blocks, never throws */
  write(row: NewRequestLogRow): void;
  /** writes every row queued so far; resolves when they are written (or counted as failed) */
  flush(): Promise<void>;
  /** flushes and stops: later rows are dropped (counted as `closed`) */
  close(): Promise<void>;
  /** rows waiting in the queue */
  readonly pending: number;
  /** bytes of those rows (by `sizeOf`) */
  readonly queuedBytes: number;
  /** true while the database cannot take rows (they wait in the queue) */
  readonly holding: boolean;
}

const DEFAULT_TIMERS: WriterTimers = {
  set(callback, ms) {
    // unref: a pending flush never keeps the process alive; shutdown flushes through close()
    return setTimeout(callback, ms).unref();
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A fixed-size FIFO: overwriting the oldest slot when full keeps `write()` O(1) under sustained overload. */
class RingQueue<T> {
  private readonly items: Array<T | undefined>;
  private head = 0;
  size = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(capacity);
  }

  /** adds an item; returns the oldest one when it was dropped to make room */
  push(item: T): T | undefined {
    if (this.size === this.capacity) {
      const dropped = this.items[this.head];
      this.items[this.head] = item;
      this.head = (this.head + 1) % this.capacity;
      return dropped;
    }
    this.items[(this.head + this.size) % this.capacity] = item;
    this.size += 1;
    return undefined;
  }

  /** puts taken items back at the head, as many as there is room for; returns those that did not fit (the oldest) */
  putBack(items: readonly T[]): T[] {
    const room = Math.min(items.length, this.capacity - this.size);
    for (let index = items.length - 1; index >= items.length - room; index -= 1) {
      this.head = (this.head - 1 + this.capacity) % this.capacity;
      this.items[this.head] = items[index];
      this.size += 1;
    }
    return items.slice(0, items.length - room);
  }

  clear(): T[] {
    return this.take(this.size);
  }

  take(limit: number): T[] {
    const count = Math.min(limit, this.size);
    const out = new Array<T>(count);
    for (let index = 0; index < count; index += 1) {
      out[index] = this.items[this.head] as T;
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
    }
    this.size -= count;
    return out;
  }
}

function sqlState(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A data error (SQLSTATE class 22 or 23, e.g. a \u0000 in a JSON value) is one row's fault, not the batch's. */
function isDataError(error: unknown): boolean {
  return /^2[23]/.test(sqlState(error) ?? '');
}

/**
 * The row is there already: a batch whose commit reached the database but whose answer was lost with the
 * connection is sent again after the outage, and its rows then collide with themselves.
 */
function isAlreadyStored(error: unknown): boolean {
  return sqlState(error) === '23505';
}

/** GATEWAY_REQUEST_LOG=off: rows are built for metrics and traces, and not kept. */
export const DISCARDING_WRITER: RequestLogWriter = {
  write: () => {},
  flush: async () => {},
  close: async () => {},
  pending: 0,
  queuedBytes: 0,
  holding: false,
};

export function createRequestLogWriter<Queued = NewRequestLogRow>(deps: RequestLogDeps<Queued>): RequestLogWriter {
  const prepare = deps.prepare ?? ((row: NewRequestLogRow) => row as Queued);
  const release = deps.release ?? (() => {});
  const batchSize = deps.batchSize ?? 200;
  const intervalMs = deps.flushIntervalMs ?? 1_000;
  const retryMs = deps.retryMs ?? 250;
  const maxRetryMs = deps.maxRetryMs ?? 5_000;
  const now = deps.now ?? Date.now;
  const timers = deps.timers ?? DEFAULT_TIMERS;
  const queue = new RingQueue<Queued>(Math.max(deps.maxQueue ?? 50_000, batchSize));
  const maxBytes = deps.maxBytes ?? Infinity;
  const sizeOf = deps.sizeOf ?? (() => 0);
  /** bytes of the rows in the queue (a batch being written is not in it) */
  let queuedBytes = 0;
  const bytesOf = (rows: readonly Queued[]) => {
    let sum = 0;
    for (const row of rows) sum += sizeOf(row);
    return sum;
  };
  let timer: unknown;
  /** the delay `timer` was armed with: an armed immediate flush is not re-armed by every further write */
  let timerMs = -1;
  let flushing: Promise<void> | undefined;
  /** an explicit flush() or close() asked for every queued row, not only full batches */
  let drainAll = false;
  let closed = false;
  /** the database is away: the delay before the next try, doubled per failure; 0 when it is not */
  let outageDelay = 0;
  let outageStarted = 0;
  /** rows dropped for a full queue since the last log line about it (logged at most every 10 s) */
  let unloggedDrops = 0;
  let lastDropLog = -Infinity;

  const drop = (reason: DropReason, count: number) => {
    if (count <= 0) return;
    deps.dropped?.inc({ reason }, count);
    if (reason !== 'queue_full') return;
    unloggedDrops += count;
    if (now() - lastDropLog < 10_000) return;
    lastDropLog = now();
    deps.logger.error({ rows: unloggedDrops, held: queue.size }, 'request log: the buffer is full; the oldest rows were dropped');
    unloggedDrops = 0;
  };

  const disarm = () => {
    if (timer === undefined) return;
    timers.clear(timer);
    timer = undefined;
    timerMs = -1;
  };

  const arm = (ms: number) => {
    disarm();
    timerMs = ms;
    timer = timers.set(() => {
      timer = undefined;
      timerMs = -1;
      void startFlush(false);
    }, ms);
  };

  /** Past `maxBytes`, the oldest rows go (the newest always stays, whatever its size). */
  function trimToBytes(): void {
    let dropped = 0;
    while (queuedBytes > maxBytes && queue.size > 1) {
      const oldest = queue.take(1);
      queuedBytes -= bytesOf(oldest);
      release(oldest);
      dropped += 1;
    }
    drop('queue_full', dropped);
  }

  /** A batch refused for its data: row by row, so one bad row does not take the others with it. */
  async function writeRefused(batch: Queued[], error: unknown): Promise<void> {
    let failed = 0;
    let last: unknown = error;
    if (batch.length > 1) {
      for (const row of batch) {
        try {
          await deps.insert([row]);
        } catch (rowError) {
          if (isAlreadyStored(rowError)) continue;
          failed += 1;
          last = rowError;
        }
      }
    } else if (!isAlreadyStored(error)) {
      failed = 1;
    }
    release(batch);
    if (failed === 0) return;
    drop('write_failed', failed);
    deps.logger.error({ err: last, rows: failed }, 'request log: rows refused by the database were dropped');
  }

  /** The database could not take a batch: it goes back to the head of the queue, and a retry is scheduled. */
  function hold(batch: Queued[], error: unknown): void {
    const overflow = queue.putBack(batch);
    queuedBytes += bytesOf(batch) - bytesOf(overflow);
    release(overflow);
    drop('queue_full', overflow.length);
    trimToBytes();
    if (outageDelay === 0) {
      outageStarted = now();
      deps.logger.error({ err: error, held: queue.size }, 'request log: the database is unavailable; rows are held in memory and retried');
      outageDelay = retryMs;
    } else {
      outageDelay = Math.min(outageDelay * 2, maxRetryMs);
    }
  }

  function recovered(): void {
    if (outageDelay === 0) return;
    deps.logger.error({ held: queue.size, outage_ms: now() - outageStarted }, 'request log: the database is back; held rows are being written');
    outageDelay = 0;
  }

  /** One batch, then more only while full batches wait (or everything, when asked): partial ones wait their turn. */
  async function drain(): Promise<void> {
    for (;;) {
      const batch = queue.take(batchSize);
      if (batch.length === 0) return;
      queuedBytes -= bytesOf(batch);
      try {
        await deps.insert(batch);
        release(batch);
        recovered();
      } catch (error) {
        if (!isDataError(error)) {
          hold(batch, error);
          return;
        }
        recovered();
        await writeRefused(batch, error);
      }
      if (queue.size < batchSize && !(drainAll && queue.size > 0)) return;
      // an embedded database runs each INSERT on this thread: let requests in between two batches
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  function startFlush(all: boolean): Promise<void> {
    disarm();
    if (all) drainAll = true;
    // a flush already running goes on with rows queued meanwhile: wait for it rather than start a second INSERT
    flushing ??= drain().finally(() => {
      flushing = undefined;
      drainAll = false;
      if (queue.size > 0 && !closed) arm(outageDelay > 0 ? outageDelay : queue.size >= batchSize ? 0 : intervalMs);
    });
    return flushing;
  }

  const wait = (ms: number) => new Promise<void>((resolve) => timers.set(resolve, ms));

  return {
    write(row) {
      if (closed) {
        drop('closed', 1);
        return;
      }
      const queued = prepare(row);
      queuedBytes += sizeOf(queued);
      const dropped = queue.push(queued);
      if (dropped !== undefined) {
        queuedBytes -= sizeOf(dropped);
        release([dropped]);
        drop('queue_full', 1);
      }
      if (queuedBytes > maxBytes) trimToBytes();
      // while the database is away the retry timer is armed: writes only queue
      if (flushing || outageDelay > 0) return;
      // a full batch goes out on the next turn of the event loop, not inside the request's own callback
      if (queue.size >= batchSize) {
        if (timerMs !== 0) arm(0);
      } else if (timer === undefined) arm(intervalMs);
    },
    flush: () => startFlush(true),
    async close() {
      closed = true;
      const deadline = now() + (deps.closeTimeoutMs ?? 10_000);
      await startFlush(true);
      while (queue.size > 0 && outageDelay > 0 && now() < deadline) {
        await wait(Math.min(outageDelay, Math.max(0, deadline - now())));
        await startFlush(true);
      }
      disarm();
      const left = queue.clear();
      queuedBytes = 0;
      release(left);
      if (left.length > 0) {
        drop('closed', left.length);
        deps.logger.error({ rows: left.length }, 'request log: the database stayed unavailable at shutdown; held rows were dropped');
      }
    },
    get pending() {
      return queue.size;
    },
    get queuedBytes() {
      return queuedBytes;
    },
    get holding() {
      return outageDelay > 0;
    },
  };
}
