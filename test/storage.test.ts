/**
 * Storage: migrations (once, all or nothing, serialised across nodes) and bootstrap (idempotent, never stores a
 * plaintext secret), against every back-end of testBackends(): PGlite always, PostgreSQL when TEST_DATABASE_URL
 * is set. Every test gets a fresh database, closed (and for PostgreSQL dropped) when the test ends.
 */
import assert from 'node:assert/strict';
import { after, describe, test, type TestContext } from 'node:test';
import { sql } from 'drizzle-orm';
import { hashApiKey } from '../src/auth/secrets.ts';
import { bootstrap } from '../src/domain/bootstrap.ts';
import { openDatabase, type Database, type Db } from '../src/storage/database.ts';
import { migrate, readMigrations, rowsOf, type Migration } from '../src/storage/migrate.ts';
import { testBackends, type TestBackend } from './helpers/databases.ts';

const INIT = '0000_init';
/** every shipped migration, in order: migrate() on an empty database applies exactly these */
const SHIPPED = readMigrations().map((migration) => migration.name);
/** the tables the init migration must create, whatever later migrations add */
const CORE_TABLES = ['api_keys', 'gateway_migrations', 'organisations', 'users', 'workspace_members', 'workspaces'];
/** every table a shipped migration creates, plus the bookkeeping table */
const ALL_TABLES = [...new Set([
  'gateway_migrations',
  ...readMigrations()
    .flatMap((migration) => migration.statements)
    // a partition (`create table x partition of y`) is part of its table, not a table of the schema
    .filter((statement) => !/create table "?\w+"? partition of/i.test(statement))
    .flatMap((statement) => [...statement.matchAll(/create table (?:if not exists )?"?(\w+)"?/gi)].map((m) => m[1]!)),
])].sort();

/** Safety net: anything a test opened and did not release is released when the file ends. */
const cleanups = new Set<() => Promise<void>>();
after(async () => {
  for (const cleanup of [...cleanups].reverse()) await cleanup();
  cleanups.clear();
});

interface Fresh {
  /** the fresh database's URL (postgres) or undefined (PGlite) */
  url: string | undefined;
  database: Database;
  db: Db;
  /** opens another connection to the same database (postgres only: PGlite in memory is one process-local db) */
  connect(): Promise<Database>;
}

/**
 * A fresh, empty database for one test; closed and dropped after the test. `seeded`: PGlite starts from the run's
 * migrated dump (scripts/run-tests.mjs) when there is one, for tests of what comes after the migrations.
 */
async function fresh(t: TestContext, backend: TestBackend, seeded = false): Promise<Fresh> {
  const created = await backend.create();
  const opened: Database[] = [];
  const seed = seeded ? process.env.GATEWAY_TEST_PGLITE_SEED : undefined;
  const connect = async () => {
    const database = await openDatabase(created.url ? { url: created.url } : { dataDir: 'memory://', seed });
    opened.push(database);
    return database;
  };
  const cleanup = async () => {
    cleanups.delete(cleanup);
    for (const database of opened) await database.close();
    await created.drop();
  };
  cleanups.add(cleanup);
  t.after(cleanup);
  const database = await connect();
  return { url: created.url, database, db: database.db, connect };
}

async function query<T>(db: Db, statement: ReturnType<typeof sql>): Promise<T[]> {
  return rowsOf<T>(await db.execute(statement));
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const [row] = await query<{ oid: string | null }>(db, sql`select to_regclass(${`public.${name}`})::text as oid`);
  return row?.oid != null;
}

async function publicTables(db: Db): Promise<string[]> {
  const rows = await query<{ table_name: string }>(
    db,
    // tables and partitioned tables, not their partitions (request_logs has one per day)
    sql`select c.relname as table_name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
  );
  return rows.map((row) => row.table_name);
}

/** the recorded migration names, or [] when gateway_migrations does not exist at all */
async function recordedMigrations(db: Db): Promise<string[]> {
  if (!(await tableExists(db, 'gateway_migrations'))) return [];
  const rows = await query<{ name: string }>(db, sql`select name from gateway_migrations order by name`);
  return rows.map((row) => row.name);
}

async function counts(db: Db): Promise<{ organisations: number; workspaces: number; apiKeys: number }> {
  const [row] = await query<{ organisations: number; workspaces: number; api_keys: number }>(
    db,
    sql`select (select count(*)::int from organisations) as organisations,
               (select count(*)::int from workspaces) as workspaces,
               (select count(*)::int from api_keys) as api_keys`,
  );
  assert.ok(row);
  return { organisations: row.organisations, workspaces: row.workspaces, apiKeys: row.api_keys };
}

/** every api_keys row as the full text of all its columns, so a secret in any column would show */
async function apiKeyRowsAsText(db: Db): Promise<{ keyHash: string; text: string }[]> {
  const rows = await query<{ key_hash: string; text: string }>(
    db,
    sql`select k.key_hash, to_jsonb(k)::text as text from api_keys k order by k.created_at`,
  );
  return rows.map((row) => ({ keyHash: row.key_hash, text: row.text }));
}

const ADMIN_KEY = 'storage-test-admin-key-0123456789abcdef';

for (const backend of testBackends()) {
  describe(`storage on ${backend.name}`, () => {
    describe('migrate()', () => {
      test('the shipped migrations start with the init migration', () => {
        const migrations = readMigrations();
        assert.equal(migrations[0]?.name, INIT);
        assert.ok(migrations[0]!.statements.length > 1, 'the init migration is split into statements');
        assert.deepEqual([...SHIPPED].sort(), SHIPPED, 'migrations are applied in name order');
        for (const table of CORE_TABLES.filter((name) => name !== 'gateway_migrations')) {
          assert.ok(ALL_TABLES.includes(table), `a shipped migration creates ${table}`);
        }
      });

      test('applies the init migration (and every other shipped one) once; a second call applies nothing', async (t) => {
        const { db } = await fresh(t, backend);
        assert.deepEqual(await recordedMigrations(db), []);
        const applied = await migrate(db);
        assert.equal(applied[0], INIT);
        assert.deepEqual(applied, SHIPPED);
        assert.deepEqual(await recordedMigrations(db), SHIPPED);
        assert.deepEqual(await migrate(db), []);
        assert.deepEqual(await recordedMigrations(db), SHIPPED, 'each migration is recorded once');
      });

      test('a database migrated up to the init migration gets only the later ones', async (t) => {
        const { db } = await fresh(t, backend);
        const [init] = readMigrations();
        assert.deepEqual(await migrate(db, [init!]), [INIT]);
        assert.deepEqual(await migrate(db), SHIPPED.slice(1));
        assert.deepEqual(await recordedMigrations(db), SHIPPED);
      });

      test('creates the tables and indexes of the schema', async (t) => {
        const { db } = await fresh(t, backend);
        assert.deepEqual(await publicTables(db), []);
        await migrate(db);
        const tables = await publicTables(db);
        assert.deepEqual(tables, ALL_TABLES);
        for (const table of CORE_TABLES) assert.ok(tables.includes(table), `${table} exists`);
        const indexes = await query<{ indexname: string }>(
          db,
          sql`select indexname from pg_indexes where schemaname = 'public' and tablename = 'api_keys' order by indexname`,
        );
        assert.ok(
          indexes.some((row) => row.indexname === 'api_keys_hash_unique'),
          'the unique index on key_hash exists',
        );
      });

      test('a failing migration on a fresh database leaves nothing half-applied', async (t) => {
        const { db } = await fresh(t, backend);
        const broken: Migration[] = [
          { name: '0000_good', statements: ['create table mig_good (id int primary key)'] },
          {
            name: '0001_broken',
            statements: ['create table mig_first (id int primary key)', 'this is not valid sql at all'],
          },
        ];
        await assert.rejects(migrate(db, broken));
        assert.equal(await tableExists(db, 'mig_first'), false, "the failing migration's first table was rolled back");
        assert.equal(await tableExists(db, 'mig_good'), false, 'earlier migrations of the same run were rolled back');
        assert.deepEqual(await recordedMigrations(db), [], 'no migration was recorded');
        // the database is still usable: the real migrations apply afterwards
        assert.deepEqual(await migrate(db), SHIPPED);
      });

      test('a failing migration on a migrated database leaves nothing half-applied', async (t) => {
        const { db } = await fresh(t, backend);
        await migrate(db);
        const broken: Migration[] = [
          ...readMigrations(),
          {
            name: '9999_broken',
            statements: ['create table mig_first (id int primary key)', 'select * from no_such_table_anywhere'],
          },
        ];
        await assert.rejects(migrate(db, broken), /no_such_table_anywhere/);
        assert.equal(await tableExists(db, 'mig_first'), false, "the failing migration's first table was rolled back");
        assert.deepEqual(await recordedMigrations(db), SHIPPED, 'the failing migration was not recorded');
      });

      if (backend.name === 'postgres') {
        test('two nodes migrating at once: both succeed and the migration is recorded once', async (t) => {
          const first = await fresh(t, backend);
          const second = await first.connect();
          const results = await Promise.all([migrate(first.db), migrate(second.db)]);
          assert.deepEqual(results.flat(), SHIPPED, 'exactly one of the two applied the migrations');
          assert.ok(
            results.some((applied) => applied.length === 0),
            'the other found nothing to do',
          );
          assert.deepEqual(await recordedMigrations(first.db), SHIPPED);
          assert.deepEqual(await publicTables(second.db), ALL_TABLES);
        });
      }
    });

    describe('bootstrap()', () => {
      async function migrated(t: TestContext): Promise<Fresh> {
        const opened = await fresh(t, backend, true);
        await migrate(opened.db);
        return opened;
      }

      test('with an admin key: one organisation, one default workspace, one hashed key', async (t) => {
        const { db } = await migrated(t);
        const result = await bootstrap(db, { adminApiKey: ADMIN_KEY });
        assert.equal(result.generatedAdminKey, undefined, 'a configured key is not reported as generated');
        assert.deepEqual(await counts(db), { organisations: 1, workspaces: 1, apiKeys: 1 });
        assert.equal(result.workspace.organisationId, result.organisation.id);
        assert.equal(result.workspace.isDefault, true);

        const [key] = await query<{ organisation_id: string; workspace_id: string | null; type: string; role: string }>(
          db,
          sql`select organisation_id, workspace_id, type, role from api_keys`,
        );
        assert.deepEqual(key, {
          organisation_id: result.organisation.id,
          workspace_id: null,
          type: 'organisation',
          role: 'owner',
        });
        const rows = await apiKeyRowsAsText(db);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.keyHash, hashApiKey(ADMIN_KEY));
        assert.ok(!rows[0]!.text.includes(ADMIN_KEY), 'the plaintext key is stored nowhere in the row');
      });

      test('a restart finds everything and creates nothing', async (t) => {
        const { db } = await migrated(t);
        const first = await bootstrap(db, { adminApiKey: ADMIN_KEY });
        const second = await bootstrap(db, { adminApiKey: ADMIN_KEY });
        assert.equal(second.organisation.id, first.organisation.id);
        assert.equal(second.workspace.id, first.workspace.id);
        assert.equal(second.generatedAdminKey, undefined);
        assert.deepEqual(await counts(db), { organisations: 1, workspaces: 1, apiKeys: 1 });
      });

      test('two starts at once create no duplicates', async (t) => {
        const { db } = await migrated(t);
        const [a, b] = await Promise.all([
          bootstrap(db, { adminApiKey: ADMIN_KEY }),
          bootstrap(db, { adminApiKey: ADMIN_KEY }),
        ]);
        assert.equal(a.organisation.id, b.organisation.id);
        assert.equal(a.workspace.id, b.workspace.id);
        assert.deepEqual(await counts(db), { organisations: 1, workspaces: 1, apiKeys: 1 });
      });

      if (backend.name === 'postgres') {
        test('two nodes (separate connections) starting at once create no duplicates', async (t) => {
          const first = await migrated(t);
          const second = await first.connect();
          const results = await Promise.all([
            bootstrap(first.db, {}),
            bootstrap(second.db, {}),
            bootstrap(first.db, { adminApiKey: ADMIN_KEY }),
            bootstrap(second.db, { adminApiKey: ADMIN_KEY }),
          ]);
          assert.equal(new Set(results.map((r) => r.organisation.id)).size, 1);
          assert.equal(new Set(results.map((r) => r.workspace.id)).size, 1);
          const generated = results.filter((r) => r.generatedAdminKey !== undefined);
          assert.ok(generated.length <= 1, 'at most one start generated a key');
          const rows = await apiKeyRowsAsText(first.db);
          assert.ok(rows.some((row) => row.keyHash === hashApiKey(ADMIN_KEY)));
          assert.equal(new Set(rows.map((row) => row.keyHash)).size, rows.length, 'no key stored twice');
          assert.equal(rows.length, 1 + generated.length);
          const c = await counts(first.db);
          assert.deepEqual([c.organisations, c.workspaces], [1, 1]);
        });
      }

      test('without an admin key: generates one key once, and only reports it once', async (t) => {
        const { db } = await migrated(t);
        const first = await bootstrap(db, {});
        const generated = first.generatedAdminKey;
        assert.ok(generated, 'the first start generates an admin key');
        assert.ok(generated.startsWith('gw_'), 'generated keys carry the gw_ prefix');
        assert.ok(generated.length > 40, 'generated keys are long random secrets');
        let rows = await apiKeyRowsAsText(db);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.keyHash, hashApiKey(generated));
        assert.ok(!rows[0]!.text.includes(generated), 'the generated plaintext is stored nowhere in the row');

        const second = await bootstrap(db, {});
        assert.equal(second.generatedAdminKey, undefined, 'a restart does not generate or reveal a key');
        assert.ok(!('generatedAdminKey' in second));
        assert.equal(second.organisation.id, first.organisation.id);
        rows = await apiKeyRowsAsText(db);
        assert.equal(rows.length, 1, 'no second key was added');
        assert.deepEqual(await counts(db), { organisations: 1, workspaces: 1, apiKeys: 1 });
      });

      test('without an admin key, two starts at once generate exactly one key', async (t) => {
        const { db } = await migrated(t);
        const results = await Promise.all([bootstrap(db, {}), bootstrap(db, {})]);
        const generated = results.map((r) => r.generatedAdminKey).filter((key) => key !== undefined);
        assert.equal(generated.length, 1);
        const rows = await apiKeyRowsAsText(db);
        assert.deepEqual(
          rows.map((row) => row.keyHash),
          [hashApiKey(generated[0]!)],
        );
      });
    });
  });
}
