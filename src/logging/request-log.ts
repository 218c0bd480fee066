/**
 * The request-log writer: requests hand it a finished row and move on; rows wait in a bounded in-memory queue and
 * reach the database in batches (one multi-row INSERT each), every `flushIntervalMs` or as soon as `batchSize`
 * rows are waiting. Nothing here runs on a request's path but `write()`, which only enqueues.
 *
 * Invariants: the queue never holds more than `maxQueue` rows (when full, the oldest row is dropped and counted);
 * one flush runs at a time; a failed batch is logged and counted, never thrown at a caller; `close()` writes
 * whatever is queued, so a clean shutdown loses nothing.
 */
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

export type DropReason = 'queue_full' | 'write_failed' | 'closed';

/** A timer the writer can be tested with: `set` returns a handle that `clear` cancels. */
export interface WriterTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface RequestLogDeps {
  /** writes one batch with one INSERT (storage/repositories/request-logs.ts) */
  insert: (rows: readonly NewRequestLogRow[]) => Promise<void>;
  logger: { error(details: Record<string, unknown>, message: string): void };
  /** counts dropped rows (gateway_request_log_dropped_total) */
  dropped?: { inc(labels: { reason: DropReason }, value: number): void };
  timers?: WriterTimers;
  /**
   * rows per INSERT, and the queue length that triggers a flush at once (default 100). Small on purpose: building
   * a batch, and with PGlite running it (~35 µs a row on this thread), pauses the event loop for the whole batch
   */
  batchSize?: number;
  /** longest time a row waits in the queue when traffic is light (default 1,000 ms) */
  flushIntervalMs?: number;
  /** rows held at most; past it the oldest is dropped (default 10,000) */
  maxQueue?: number;
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

  /** adds an item; true when the oldest one was dropped to make room */
  push(item: T): boolean {
    if (this.size === this.capacity) {
      this.items[this.head] = item;
      this.head = (this.head + 1) % this.capacity;
      return true;
    }
    this.items[(this.head + this.size) % this.capacity] = item;
    this.size += 1;
    return false;
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

/** A data error (SQLSTATE class 22 or 23, e.g. a \u0000 in a JSON value) is one row's fault, not the batch's. */
function isDataError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^2[23]/.test(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export function createRequestLogWriter(deps: RequestLogDeps): RequestLogWriter {
  const batchSize = deps.batchSize ?? 100;
  const intervalMs = deps.flushIntervalMs ?? 1_000;
  const timers = deps.timers ?? DEFAULT_TIMERS;
  const queue = new RingQueue<NewRequestLogRow>(Math.max(deps.maxQueue ?? 10_000, batchSize));
  let timer: unknown;
  /** the delay `timer` was armed with: an armed immediate flush is not re-armed by every further write */
  let timerMs = -1;
  let flushing: Promise<void> | undefined;
  /** an explicit flush() or close() asked for every queued row, not only full batches */
  let drainAll = false;
  let closed = false;

  const drop = (reason: DropReason, count: number) => deps.dropped?.inc({ reason }, count);

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

  /** A refused batch: with a data error, row by row so one bad row does not take the others with it. */
  async function writeFailed(batch: NewRequestLogRow[], error: unknown): Promise<void> {
    if (batch.length > 1 && isDataError(error)) {
      let failed = 0;
      let last: unknown;
      for (const row of batch) {
        try {
          await deps.insert([row]);
        } catch (rowError) {
          failed += 1;
          last = rowError;
        }
      }
      if (failed === 0) return;
      drop('write_failed', failed);
      deps.logger.error({ err: last, rows: failed }, 'request log: rows refused by the database were dropped');
      return;
    }
    drop('write_failed', batch.length);
    deps.logger.error({ err: error, rows: batch.length }, 'request log: a batch could not be written and was dropped');
  }

  /** One batch, then more only while full batches wait (or everything, when asked): partial ones wait their turn. */
  async function drain(): Promise<void> {
    for (;;) {
      const batch = queue.take(batchSize);
      if (batch.length === 0) return;
      try {
        await deps.insert(batch);
      } catch (error) {
        await writeFailed(batch, error);
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
      if (queue.size > 0 && !closed) arm(queue.size >= batchSize ? 0 : intervalMs);
    });
    return flushing;
  }

  return {
    write(row) {
      if (closed) {
        drop('closed', 1);
        return;
      }
      if (queue.push(row)) drop('queue_full', 1);
      if (flushing) return;
      // a full batch goes out on the next turn of the event loop, not inside the request's own callback
      if (queue.size >= batchSize) {
        if (timerMs !== 0) arm(0);
      } else if (timer === undefined) arm(intervalMs);
    },
    flush: () => startFlush(true),
    async close() {
      closed = true;
      await startFlush(true);
    },
    get pending() {
      return queue.size;
    },
  };
}
