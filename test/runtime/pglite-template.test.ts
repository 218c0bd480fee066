/**
 * The embedded database's template (src/storage/pglite-worker/template.ts): the build makes one (initdb, then the
 * shipped migrations); a first start copies it into an empty data dir and opens it with nothing left to migrate;
 * a data dir that already holds a database, or anything else, is never overwritten. An in-memory database can start
 * from a dump (dumpSeed; the tests' gateways do) instead of initdb, and each one started from it is its own.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { dumpSeed, makeTemplate, seedFromTemplate } from '../../src/storage/pglite-worker/template.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { migrate, readMigrations, rowsOf } from '../../src/storage/migrate.ts';

const root = fs.mkdtempSync(path.join(tmpdir(), 'gw-template-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const template = path.join(root, 'template');

test('a template, copied into an empty data dir, opens as a migrated database; what is there is never overwritten', { timeout: 120_000 }, async () => {
  await makeTemplate(template);
  assert.ok(fs.existsSync(path.join(template, 'PG_VERSION')));

  const dataDir = path.join(root, 'node');
  const target = path.join(dataDir, 'pglite');
  assert.equal(seedFromTemplate(target, template), true);
  assert.deepEqual(fs.readdirSync(dataDir), ['pglite'], 'no staging dir left behind');

  // the gateway's own path (worker thread, migrate): nothing left to apply
  const database = await openDatabase({ dataDir });
  try {
    assert.deepEqual(await migrate(database.db), []);
    // the embedded settings (src/storage/database.ts): a small buffer pool, and new WAL segments not zero-filled
    // (PGlite writes a filled segment's 1 MiB runs through a new buffer each: the peak's transient ~10-20 MiB)
    const setting = async (name: string) => Object.values(rowsOf<Record<string, string>>(await database.db.execute(sql.raw(`show ${name}`)))[0]!)[0];
    assert.equal(await setting('shared_buffers'), '8MB');
    assert.equal(await setting('wal_init_zero'), 'off');
  } finally {
    await database.close();
  }
  const db = new PGlite(target);
  try {
    await db.exec(`create table kept (id int); insert into kept values (7)`);
    const names = (await db.query<{ name: string }>('select name from gateway_migrations order by name')).rows.map((row) => row.name);
    assert.deepEqual(names, readMigrations().map((migration) => migration.name));
  } finally {
    await db.close();
  }

  // a database already there is kept as it is
  assert.equal(seedFromTemplate(target, template), false);
  const again = new PGlite(target);
  try {
    assert.deepEqual((await again.query<{ id: number }>('select id from kept')).rows, [{ id: 7 }]);
  } finally {
    await again.close();
  }

  // a non-empty dir without a database is not ours to overwrite; no template: nothing to do
  const other = path.join(root, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(other, 'notes.txt'), 'mine');
  assert.equal(seedFromTemplate(other, template), false);
  assert.deepEqual(fs.readdirSync(other), ['notes.txt']);
  assert.equal(seedFromTemplate(path.join(root, 'empty'), path.join(root, 'no-template')), false);
  assert.equal(fs.existsSync(path.join(root, 'empty')), false);
});

test('an in-memory database started from a dumped seed is migrated, and each one started from it is its own', { timeout: 120_000 }, async () => {
  const seed = path.join(root, 'seed.tar');
  await dumpSeed(seed);
  assert.deepEqual(fs.readdirSync(root).filter((name) => name.startsWith('seed')), ['seed.tar'], 'no staging file left behind');

  const first = await openDatabase({ dataDir: 'memory://', seed });
  const second = await openDatabase({ seed });
  try {
    assert.deepEqual(await migrate(first.db), [], 'nothing left to migrate');
    const names = rowsOf<{ name: string }>(await first.db.execute(sql`select name from gateway_migrations order by name`)).map((row) => row.name);
    assert.deepEqual(names, readMigrations().map((migration) => migration.name));
    await first.db.execute(sql`create table only_here (id int)`);
    const tables = rowsOf<{ n: number }>(await second.db.execute(sql`select count(*)::int as n from pg_tables where tablename = 'only_here'`));
    assert.equal(tables[0]!.n, 0, 'the second database does not see the first one\'s table');
  } finally {
    await first.close();
    await second.close();
  }
  // a data dir on disk ignores the seed (a first start copies the build's template, as above)
  assert.equal(fs.statSync(seed).size > 0, true);
});
