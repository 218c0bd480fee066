/** The request log's day partitions on every back-end: made ahead, rows routed to their day, retention drops days (and their rollup hours). */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openPostgresLogStore } from '../../src/logging/log-store.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { migrate, rowsOf } from '../../src/storage/migrate.ts';
import { listLogPartitions } from '../../src/storage/repositories/log-partitions.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { testBackends } from '../helpers/databases.ts';

const DAY = 86_400_000;

function row(n: number, at: Date): NewRequestLogRow {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    organisationId: '00000000-0000-4000-8000-000000000001',
    createdAt: at,
    traceId: `t-${n}`,
    route: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    isSuccess: true,
    responseTimeMs: 5,
  };
}

for (const backend of testBackends()) {
  describe(`request log partitions [${backend.name}]`, () => {
    let database: Database;
    let drop: () => Promise<void> = async () => {};
    after(async () => {
      await database?.close();
      await drop();
    });

    test('maintenance makes days ahead, keeps rows in their day, and drops whole days past retention', async () => {
      const created = await backend.create();
      drop = created.drop;
      database = await openDatabase({ url: created.url, dataDir: 'memory://' });
      await migrate(database.db);
      const db = database.db;
      const now = new Date('2030-03-10T12:00:00Z');
      const store = await openPostgresLogStore(database, { retentionDays: 2 });
      const first = await store.maintain(now);
      assert.deepEqual(first.skipped, []);
      const days = await listLogPartitions(db);
      for (const day of ['2030-03-10', '2030-03-11', '2030-03-12', '2030-03-13']) assert.ok(days.includes(day), `${day} exists`);

      // through the store's own batch insert (the writer's prepared statement), twice: prepared once, run again
      await store.insert([row(1, new Date(now.getTime() - 5 * DAY)), row(2, now)].map(store.prepare));
      await store.insert([row(3, new Date(now.getTime() + DAY))].map(store.prepare));
      const placed = rowsOf<{ trace_id: string; part: string }>(await db.execute(sql`select trace_id, tableoid::regclass::text as part from request_logs order by trace_id`));
      assert.deepEqual(placed.map((entry) => [entry.trace_id, entry.part]), [
        ['t-1', 'request_logs_default'],
        ['t-2', 'request_logs_p20300310'],
        ['t-3', 'request_logs_p20300311'],
      ]);

      // two days later, with two days kept: the 10th is gone with its rows, the default partition trimmed
      const later = await store.maintain(new Date(now.getTime() + 3 * DAY));
      assert.ok(later.dropped.includes('2030-03-10'));
      assert.ok(!(await listLogPartitions(db)).includes('2030-03-10'));
      const left = rowsOf<{ trace_id: string }>(await db.execute(sql`select trace_id from request_logs order by trace_id`));
      assert.deepEqual(left.map((entry) => entry.trace_id), ['t-3']);
      // the hourly rollups kept in step: only the hours of the rows still kept
      const hours = rowsOf<{ hour: string }>(await db.execute(sql`select to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24') as hour from analytics_hourly order by hour`));
      assert.deepEqual(hours.map((entry) => entry.hour), ['2030-03-11T12']);
    });

    test("the bodies are compressed with lz4 where PostgreSQL has it (every partition, later ones too); PGlite keeps pglz", async () => {
      await (await openPostgresLogStore(database, { retentionDays: 10_000 })).maintain(new Date('2032-06-01T00:00:00Z'));
      const settings = rowsOf<{ table: string; compression: string }>(
        await database.db.execute(sql`select c.relname as table, a.attcompression::text as compression from pg_attribute a join pg_class c on c.oid = a.attrelid
          where a.attname in ('request_body', 'response_body') and (c.relname = 'request_logs' or c.oid in (select inhrelid from pg_inherits where inhparent = 'request_logs'::regclass))`),
      );
      assert.ok(settings.some((entry) => entry.table === 'request_logs_p20320601'), 'a partition made after the migration is there');
      const expected = backend.name === 'pglite' ? '' : 'l';
      for (const entry of settings) assert.equal(entry.compression, expected, `${entry.table}: ${JSON.stringify(entry.compression)}`);
    });

    test('a day whose rows already sit in the default partition is reported, not made', async () => {
      const when = new Date('2031-01-01T08:00:00Z');
      await insertRequestLogs(database.db, [row(10, when)]);
      const report = await (await openPostgresLogStore(database, { retentionDays: 10_000 })).maintain(when);
      assert.deepEqual(report.skipped, ['2031-01-01']);
      const count = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from request_logs where trace_id = 't-10'`));
      assert.equal(count[0]!.n, 1, 'the row is still there');
    });

    test('the planner statistics of the days being written are refreshed on the embedded database, which has no autovacuum', async () => {
      const when = new Date('2033-02-02T10:00:00Z');
      const store = await openPostgresLogStore(database, { retentionDays: 10_000 });
      await store.maintain(when);
      await store.insert(Array.from({ length: 30 }, (_, index) => row(100 + index, when)).map(store.prepare));
      const analyzed = await store.analyze(when);
      const [stats] = rowsOf<{ tuples: number }>(await database.db.execute(sql`select reltuples::int as tuples from pg_class where relname = 'request_logs_p20330202'`));
      if (backend.name === 'pglite') {
        assert.deepEqual(analyzed, ['2033-02-02'], 'today (the day before has no partition)');
        assert.equal(stats!.tuples, 30, 'the planner knows the rows are there');
      } else {
        assert.deepEqual(analyzed, [], "PostgreSQL's autovacuum does it");
      }
    });
  });
}
