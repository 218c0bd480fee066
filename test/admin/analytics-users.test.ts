/**
 * Unique users across hours and days (issue 13), on PGlite and the real PostgreSQL. Over a range of days the users
 * graphs read four sources at once: the raw rows of the two partial hours at the edges, the hourly users rollup for
 * the whole hours before the first and after the last whole UTC day, and the daily users rollup for the whole days.
 * Users are placed in each of those parts (and just outside the range, and in another workspace), so a user counted
 * once per source, a part left out, or an edge off by a millisecond changes a count checked here against a count
 * made by hand. The log is written in concurrent batches whose users come in opposite orders: the rollups must stay
 * exact (and no batch deadlock). Retention trims the daily rollup with the hourly one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { rowsOf } from '../../src/storage/migrate.ts';
import { dropLogPartitionsBefore } from '../../src/storage/repositories/log-partitions.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Row = NewRequestLogRow & { createdAt: Date };
interface Placed {
  user: string | null;
  /** day, hour, minute, ms after day 0's UTC midnight */
  at: [number, number, number, number?];
  /** the key's user instead of metadata._user (with `_user: ''`, which counts as absent, when 'blank') */
  viaKey?: 'absent' | 'blank';
  otherWorkspace?: boolean;
}

// the daily range: from day 0 05:20 to day 3 02:10 (inclusive); its whole days are day 1 and day 2
const FROM: Placed['at'] = [0, 5, 20];
const TO: Placed['at'] = [3, 2, 10];
const STORY: Placed[] = [
  { user: 'ana', at: [0, 5, 30] }, // the raw head edge
  { user: 'ana', at: [1, 10, 0] }, // a whole day
  { user: 'ana', at: [3, 2, 5] }, // the raw tail edge
  { user: 'ben', at: [0, 7, 15] }, // an hour before the first whole day
  { user: 'ben', at: [2, 13, 0] },
  { user: 'ben', at: [3, 1, 0] }, // an hour after the last whole day
  { user: 'cy', at: [1, 0, 0, 0] }, // a whole day's first and last millisecond
  { user: 'cy', at: [1, 23, 59, 59_999] },
  { user: 'dee', at: [0, 5, 19, 59_999] }, // a millisecond before the range
  { user: 'dee', at: [3, 2, 10, 1] }, // a millisecond after it
  { user: 'eve', at: [2, 10, 0], viaKey: 'absent' },
  { user: 'eve', at: [0, 22, 0], viaKey: 'blank' },
  { user: 'hal', at: [0, 5, 45] }, // only in the raw head edge
  { user: 'ivy', at: [3, 1, 30] }, // only in the hourly tail
  { user: 'fay', at: [2, 9, 0], otherWorkspace: true },
  { user: null, at: [1, 12, 0] }, // nobody's request: in no user count
];

const time = (base: number, [day, hour, minute, ms = 0]: Placed['at']) => base + day * DAY + hour * HOUR + minute * MINUTE + ms;
const weekOf = (t: number) => {
  const day = Math.floor(t / DAY) * DAY;
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
};

for (const backend of testBackends()) {
  describe(`unique users across hours and days on ${backend.name}`, () => {
    let gateway: TestGateway;
    let drop: () => Promise<void> = async () => {};
    let call: ReturnType<typeof adminClient>;
    let key: string;
    let A: string;
    let base: number;
    const rows: Row[] = [];
    /** the users known by their key's user id, by name */
    const keyUsers = new Map<string, string>();
    const userOf = (row: Row) => (row.metadata as Record<string, string>)._user || row.userId || null;
    const counted = (from: number, to: number) =>
      rows.filter((row) => row.workspaceId === A && userOf(row) !== null && row.createdAt.getTime() >= from && row.createdAt.getTime() <= to);

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = (await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Users A', slug: 'ws-users-a' })).body.id;
      const B = (await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Users B', slug: 'ws-users-b' })).body.id;
      key = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'svc', scopes: [...ALL_SCOPES], workspace_id: A })).body.key;
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      base = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;
      const row = (placed: Placed, index: number): Row => {
        const userId = placed.viaKey && placed.user ? (keyUsers.get(placed.user) ?? keyUsers.set(placed.user, randomUUID()).get(placed.user)!) : null;
        const metadata = placed.viaKey === 'blank' ? { _user: '' } : placed.user && !placed.viaKey ? { _user: placed.user } : {};
        return {
          id: randomUUID(), organisationId, workspaceId: placed.otherWorkspace ? B : A, userId, createdAt: new Date(time(base, placed.at)),
          traceId: `trace-${index}`, route: 'chat', method: 'POST', path: '/v1/chat/completions', status: 200, isSuccess: true,
          responseTimeMs: 10, cost: (0.0001 * ((index % 7) + 1)).toFixed(6), metadata,
        };
      };
      // twelve regulars, each on one of the four days, many requests over many hours
      const regulars: Placed[] = [];
      for (let i = 0; i < 480; i++) regulars.push({ user: `u${i % 12}`, at: [(i % 12) % 4, Math.floor(((i * 7919) % 1440) / 60), (i * 7919) % 60, i] });
      rows.push(...[...STORY, ...regulars].map(row));
      // twelve batches at once, every other one in the opposite order: they meet on the same rollup rows
      const batches = Array.from({ length: 12 }, (_, index) => rows.filter((_, at) => at % 12 === index));
      await Promise.all(batches.map((batch, index) => insertRequestLogs(gateway.gateway.database.db, index % 2 ? [...batch].reverse() : batch)));
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    const get = async (path: string, from: number, to: number, extra: Record<string, string> = {}) => {
      const query = new URLSearchParams({ time_of_generation_min: new Date(from).toISOString(), time_of_generation_max: new Date(to).toISOString(), ...extra });
      const response = await call('GET', `/analytics/${path}?${query}`, key);
      assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      return response.body;
    };

    test('the users rollups equal the log counted by hand, per hour and per UTC day, after concurrent batches', async () => {
      const db = gateway.gateway.database.db;
      for (const [table, column, unit] of [['analytics_users_hourly', 'hour', HOUR], ['analytics_users_daily', 'day', DAY]] as const) {
        const stored = rowsOf<{ at: number; user_key: string; requests: number; cost: number }>(await db.execute(sql`select
          (extract(epoch from ${sql.raw(column)}) * 1000)::float8 as at, user_key, requests::float8 as requests, cost::float8 as cost
          from ${sql.raw(table)} where workspace_id = ${A}::uuid order by 1, 2`));
        const expected = new Map<string, { requests: number; cost: number }>();
        for (const entry of counted(-Infinity, Infinity)) {
          const id = `${Math.floor(entry.createdAt.getTime() / unit) * unit} ${userOf(entry)}`;
          const sums = expected.get(id) ?? { requests: 0, cost: 0 };
          expected.set(id, { requests: sums.requests + 1, cost: sums.cost + Number(entry.cost) });
        }
        assert.deepEqual(stored.map((entry) => `${entry.at} ${entry.user_key}`).sort(), [...expected.keys()].sort(), `${table}: one row per user and ${column}`);
        for (const entry of stored) {
          const sums = expected.get(`${entry.at} ${entry.user_key}`)!;
          assert.equal(entry.requests, sums.requests, `${table} requests`);
          assert.ok(Math.abs(entry.cost - sums.cost) < 1e-9, `${table} cost`);
        }
      }
    });

    test('day buckets: a user in the edges, the hours around the days and the days counts once; every bucket exact', async () => {
      const from = time(base, FROM);
      const to = time(base, TO);
      const R = counted(from, to);
      const unique = new Set(R.map(userOf));
      const named = [...unique].map((user) => [...keyUsers].find(([, id]) => id === user)?.[0] ?? user);
      assert.deepEqual(named.filter((user) => !/^u\d/.test(user!)).sort(), ['ana', 'ben', 'cy', 'eve', 'hal', 'ivy'], 'the story as placed');
      const users = await get('graphs/users', from, to);
      assert.equal(users.summary.total, unique.size);
      assert.equal(users.data_points.length, 4);
      for (const point of users.data_points as Array<{ timestamp: string; total: number }>) {
        const day = Date.parse(point.timestamp);
        assert.equal(point.total, new Set(R.filter((row) => Math.floor(row.createdAt.getTime() / DAY) * DAY === day).map(userOf)).size, point.timestamp);
      }
      const requests = await get('graphs/users/requests', from, to);
      assert.equal(requests.summary.total, R.length);
      assert.equal(requests.summary.unique, unique.size);
      const group = await get('groups/users', from, to, { page_size: '100' });
      assert.equal(group.total, unique.size);
      for (const entry of group.data as Array<{ user: string; requests: string }>) {
        assert.equal(entry.requests, String(R.filter((row) => userOf(row) === entry.user).length), entry.user);
      }
    });

    test('hour and week buckets agree with the hand count too', async () => {
      for (const [from, to, bucket] of [
        [time(base, FROM), time(base, [1, 20, 0]), (t: number) => Math.floor(t / HOUR) * HOUR],
        [time(base, FROM) - 70 * DAY, time(base, TO), weekOf],
      ] as const) {
        const R = counted(from, to);
        const users = await get('graphs/users', from, to);
        assert.equal(users.summary.total, new Set(R.map(userOf)).size);
        for (const point of users.data_points as Array<{ timestamp: string; total: number }>) {
          const start = Date.parse(point.timestamp);
          assert.equal(point.total, new Set(R.filter((row) => bucket(row.createdAt.getTime()) === start).map(userOf)).size, point.timestamp);
        }
      }
    });

    test('retention trims the daily users rollup with the hourly one', async () => {
      const db = gateway.gateway.database.db;
      const cutoff = new Date(base + 2 * DAY);
      await dropLogPartitionsBefore(db, cutoff);
      for (const [table, column] of [['analytics_users_hourly', 'hour'], ['analytics_users_daily', 'day']] as const) {
        const [left] = rowsOf<{ before: number; kept: number }>(await db.execute(sql`select count(*) filter (where ${sql.raw(column)} < ${cutoff.toISOString()}::timestamptz)::int as before,
          count(*)::int as kept from ${sql.raw(table)}`));
        assert.equal(left!.before, 0, `${table} trimmed`);
        assert.ok(left!.kept > 0, `${table} keeps the days after the cutoff`);
      }
    });
  });
}
