/**
 * The storage back-ends every storage test runs against: embedded PGlite always, and the real PostgreSQL when
 * TEST_DATABASE_URL is set (CI sets it). Each PostgreSQL test gets a fresh database, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestBackend {
  name: 'pglite' | 'postgres';
  /** database URL for a fresh database (postgres), undefined for PGlite */
  create(): Promise<{ url: string | undefined; drop(): Promise<void> }>;
}

export function testBackends(): TestBackend[] {
  const backends: TestBackend[] = [{ name: 'pglite', create: async () => ({ url: undefined, drop: async () => {} }) }];
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) backends.push({ name: 'postgres', create: () => createPostgresDatabase(serverUrl) });
  return backends;
}

export async function createPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
