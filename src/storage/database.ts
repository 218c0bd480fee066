/**
 * Opens the relational store: PGlite in the data dir by default, PostgreSQL when a URL is given.
 * Both are driven through the same Drizzle schema and the same SQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent the embedded PGlite database is used */
  url?: string | undefined;
  /** where PGlite keeps its files; `memory://` (or undefined) keeps it in memory */
  dataDir?: string | undefined;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url);
  return openPglite(options.dataDir);
}

async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A pool error on an idle client must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = drizzlePostgres(pool, { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  // The embedded database holds the control plane only (the hot path reads caches, not it): a small buffer pool
  // saves ~150 MiB of resident memory against PostgreSQL's 128 MB default.
  const options = { postgresqlconf: 'shared_buffers = 16MB' };
  let client: PGlite;
  if (!dataDir || dataDir.startsWith('memory://')) {
    client = new PGlite(options);
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    client = new PGlite(path.join(dataDir, 'pglite'), options);
  }
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await client.close();
    },
  };
}
