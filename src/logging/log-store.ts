/**
 * Where request-log rows are kept, behind one small interface: the writer hands it batches, the maintenance job
 * keeps its time partitions. The PostgreSQL (or PGlite) store is the one there is; a columnar store would be a
 * second implementation of this interface, and nothing on the request path would change.
 */
import type { Database } from '../storage/database.ts';
import { analyzeRecentLogPartitions, dropLogPartitionsBefore, ensureLogPartitions } from '../storage/repositories/log-partitions.ts';
import { openBinaryLogInsert, type EncodedLogRow } from '../storage/repositories/request-logs-binary.ts';
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

export interface LogStore {
  /** the form a row waits in until its batch is written (for the PostgreSQL store: its binary record) */
  prepare(row: NewRequestLogRow): EncodedLogRow;
  /** writes one batch (one statement); throws when the store cannot take it */
  insert(rows: readonly EncodedLogRow[]): Promise<void>;
  /** rows that will not be read again, written or dropped: the store may reuse their memory */
  release(rows: readonly EncodedLogRow[]): void;
  /** makes room for the coming days and drops what is past retention */
  maintain(now: Date): Promise<MaintenanceReport>;
  /**
   * refreshes the planner's statistics of what is being written where the database does not (the embedded one has
   * no autovacuum); returns the day partitions analysed
   */
  analyze(now: Date): Promise<string[]>;
}

export interface MaintenanceReport {
  /** days whose rows went to the default partition, so no partition of their own could be made */
  skipped: string[];
  /** day partitions dropped for retention */
  dropped: string[];
}

/** Days made ahead of today, so rows never wait for a partition. */
const DAYS_AHEAD = 3;
const DAY_MS = 86_400_000;

/** The PostgreSQL (or PGlite) store; opening it makes the batch's row type if it is not there (request-logs-binary.ts). */
export async function openPostgresLogStore(database: Pick<Database, 'db' | 'execPrepared' | 'kind'>, options: { retentionDays: number }): Promise<LogStore> {
  const { db } = database;
  const batches = await openBinaryLogInsert(database);
  return {
    prepare: batches.encode,
    insert: (rows) => batches.insert(rows),
    release: (rows) => batches.release(rows),
    async maintain(now) {
      const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
      const skipped = await ensureLogPartitions(db, today, DAYS_AHEAD + 1);
      const dropped = await dropLogPartitionsBefore(db, new Date(today.getTime() - options.retentionDays * DAY_MS));
      return { skipped, dropped };
    },
    async analyze(now) {
      // PostgreSQL's autovacuum keeps the statistics; the embedded database has none to do it
      if (database.kind !== 'pglite') return [];
      return analyzeRecentLogPartitions(db, new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS));
    },
  };
}

/**
 * Runs `maintain` now and then every `everyMs` (default hourly), each time followed by `analyze`; failures are
 * reported, never thrown. `ready` waits for the first `maintain` only: a start does not wait for statistics.
 */
export function scheduleLogMaintenance(
  store: LogStore,
  options: { everyMs?: number; now?: () => Date; onError: (error: unknown) => void; onReport?: (report: MaintenanceReport) => void },
): { ready: Promise<void>; stop(): void } {
  const now = options.now ?? (() => new Date());
  const run = async () => {
    try {
      const report = await store.maintain(now());
      options.onReport?.(report);
    } catch (error) {
      options.onError(error);
    }
  };
  const analyze = async () => {
    try {
      await store.analyze(now());
    } catch (error) {
      options.onError(error);
    }
  };
  const ready = run();
  void ready.then(analyze);
  const timer = setInterval(() => void run().then(analyze), options.everyMs ?? 3_600_000).unref();
  return { ready, stop: () => clearInterval(timer) };
}
