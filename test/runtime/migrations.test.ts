/**
 * A node that finds the schema newer than itself (gateway_migrations records a migration it does not ship) refuses
 * to start, with a clear message, and leaves the database as it found it. On PGlite, and on PostgreSQL when
 * TEST_DATABASE_URL is set; then once with a real gateway process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createPostgresDatabase, testBackends } from '../helpers/databases.ts';
import { startNode } from '../helpers/gateway-process.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { migrate, readMigrations, rowsOf, SchemaNewerError } from '../../src/storage/migrate.ts';

const FUTURE = '9999_from_a_newer_gateway';

async function recorded(database: Database): Promise<string[]> {
  const result: unknown = await database.db.execute(sql`select name from gateway_migrations order by name`);
  return rowsOf<{ name: string }>(result).map((row) => row.name);
}

for (const backend of testBackends()) {
  describe(`a schema newer than the gateway, on ${backend.name}`, () => {
    test('migrate() refuses it, naming the unknown migration, and changes nothing', async (t) => {
      const target = await backend.create();
      t.after(() => target.drop());
      const database = await openDatabase({ url: target.url, dataDir: 'memory://' });
      t.after(() => database.close());
      await migrate(database.db);
      const shipped = readMigrations();
      await database.db.execute(sql`insert into gateway_migrations (name) values (${FUTURE})`);

      // an older gateway: it ships all but the last migration, so the last one is unknown to it too
      const older = shipped.slice(0, -1);
      const error = await migrate(database.db, older).then(
        () => assert.fail('migrate() accepted a newer schema'),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof SchemaNewerError);
      assert.deepEqual(error.unknownMigrations, [shipped.at(-1)!.name, FUTURE].sort());
      assert.match(error.message, /schema is newer than this gateway/);
      assert.match(error.message, new RegExp(FUTURE));
      assert.deepEqual(await recorded(database), [...shipped.map((m) => m.name), FUTURE].sort(), 'nothing was applied or removed');

      // the same code with every migration it knows applied, and nothing unknown: starts as before
      await database.db.execute(sql`delete from gateway_migrations where name = ${FUTURE}`);
      assert.deepEqual(await migrate(database.db), []);
    });
  });
}

test('a gateway process on a newer schema exits at start-up with the message on stderr', { timeout: 90_000 }, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-newer-schema-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const postgres = process.env.TEST_DATABASE_URL ? await createPostgresDatabase(process.env.TEST_DATABASE_URL) : undefined;
  after(async () => postgres?.drop());

  // the database as a newer gateway left it
  const database = await openDatabase({ url: postgres?.url, dataDir });
  try {
    await migrate(database.db);
    await database.db.execute(sql`insert into gateway_migrations (name) values (${FUTURE})`);
  } finally {
    await database.close();
  }

  await assert.rejects(
    startNode({ GATEWAY_DATA_DIR: dataDir, ...(postgres ? { DATABASE_URL: postgres.url } : {}) }),
    (error: Error) => {
      assert.match(error.message, /the gateway process exited/);
      assert.match(error.message, /the gateway cannot start: The database schema is newer than this gateway/);
      assert.match(error.message, new RegExp(FUTURE));
      return true;
    },
  );
});
