/**
 * Opens the relational store: PGlite in the data dir by default, PostgreSQL when a URL is given.
 * Both are driven through the same Drizzle schema and the same SQL.
 */
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { prestartPgliteWorker, startPgliteWorker, type PgliteThreadClient, type PgliteWorkerClient } from './pglite-worker/client.ts';
import { restartWhenIdle, type IdleRestartOptions } from './pglite-worker/idle-restart.ts';
import type { BinaryParameter, PreparedStatement } from './extended-protocol.ts';
import { runStatement } from './postgres-statement.ts';
import type { WorkerStart } from './pglite-worker/protocol.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /**
   * Runs a statement prepared once by name (per connection) instead of parsed and planned on every call, for the
   * hot statements (the request log's batch INSERT). Parameters go in the binary format (a Buffer as its bytes);
   * a parameter may be given as chunks (a request-log batch's records), concatenated only where a driver needs it.
   * The caller may reuse the parameters' memory once the promise has settled.
   */
  execPrepared(statement: PreparedStatement, params: BinaryParameter[]): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent the embedded PGlite database is used */
  url?: string | undefined;
  /** where PGlite keeps its files; `memory://` (or undefined) keeps it in memory */
  dataDir?: string | undefined;
  /** an in-memory database starts from this dump (dumpSeed in pglite-worker/template.ts) instead of initdb */
  seed?: string | undefined;
  /** an embedded database on files restarts its thread when idle (pglite-worker/idle-restart.ts); never when absent */
  idleRestart?: IdleRestartOptions | undefined;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url);
  // PGlite runs on the thread that calls it: it lives in a worker thread of its own (pglite-worker/), so its work
  // (request-log batches, admin queries) never pauses the requests in flight.
  const client = await startPgliteWorker(pgliteStart(options));
  const idle = idleRestartOf(client, options);
  const database = await embeddedDatabaseOver(client);
  return idle ? { ...database, close: () => (idle.stop(), database.close()) } : database;
}

/** The idle restart, for a database on files only (an in-memory one would be lost), when asked for. */
function idleRestartOf(client: PgliteThreadClient, options: DatabaseOptions): { stop(): void } | undefined {
  const onFiles = options.dataDir !== undefined && !options.dataDir.startsWith('memory://');
  return onFiles && options.idleRestart && options.idleRestart.idleMs > 0 ? restartWhenIdle(client, options.idleRestart) : undefined;
}

// Each driver is loaded only when it is used: a node on PostgreSQL never loads PGlite's Drizzle driver, and the
// embedded default never loads node-postgres (a few MB of resident memory and some start-up time each).
async function openPostgres(url: string): Promise<Database> {
  const [{ default: pg }, { drizzle: drizzlePostgres }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')]);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A pool error on an idle client must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = drizzlePostgres(pool, { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    async execPrepared(statement, params) {
      // prepared on each pooled connection the first time it runs there; the parameters' chunks written as they are
      await runStatement(pool, statement, params);
    },
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * The embedded PostgreSQL's settings. It holds the control plane and the request log (the hot path reads caches,
 * not it):
 * - a small buffer pool saves ~150 MiB of resident memory against PostgreSQL's 128 MB default, and 8 MB against 16
 *   saved another 5-10 MiB at boot and at peak with no change in the database thread's CPU a logged request;
 * - new WAL segments are not zero-filled: PostgreSQL writes a new 16 MB segment's zeros in 1 MiB vectored writes, and
 *   PGlite's file layer gathers each into a new 1 MiB buffer, left for that thread's rare full collections: 10-20 MiB
 *   at a time under the log's load, the peak's transient spikes. Off, a segment is made by writing its last byte.
 * (docs/performance.md, tenth and eleventh sessions)
 */
const PGLITE_CONF = ['shared_buffers = 8MB', 'wal_init_zero = off'].join('\n');

function pgliteStart({ dataDir, seed }: DatabaseOptions): WorkerStart {
  const inMemory = !dataDir || dataDir.startsWith('memory://');
  return { dataDir: inMemory ? undefined : dataDir, seed: inMemory ? seed : undefined, postgresqlconf: PGLITE_CONF };
}

/**
 * Starts the embedded database's thread now, when `options` select it, for the openDatabase that follows to adopt
 * (main.ts: PGlite compiles and opens while the rest of the gateway loads).
 */
export function prestartDatabase(options: DatabaseOptions): void {
  if (!options.url) prestartPgliteWorker(pgliteStart(options));
}

/**
 * Starts (or adopts the prestarted) thread that owns the embedded database; a cluster primary holds it for its
 * workers. `stop` ends the idle restart (call it before closing the client).
 */
export async function startEmbeddedDatabase(dataDir: string | undefined, idleRestart?: IdleRestartOptions): Promise<{ client: PgliteWorkerClient; stop(): void }> {
  const client = await startPgliteWorker(pgliteStart({ dataDir }));
  const idle = idleRestartOf(client, { dataDir, idleRestart });
  return { client, stop: () => idle?.stop() };
}

/** The embedded database through a client with PGlite's interface: its own thread's, or a cluster primary's over IPC. */
export async function embeddedDatabaseOver(client: PgliteWorkerClient): Promise<Database> {
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  // the client speaks the part of PGlite's interface Drizzle calls (query, exec, transaction)
  const db = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    execPrepared: (statement, params) => client.execPrepared(statement, params),
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await client.close();
    },
  };
}
