/**
 * The rate-limit counter commands (src/limits/rate-limit-scripts.ts): the same cases against the in-process twin
 * and, when TEST_REDIS_URL is set, the Lua on Redis, so the two cannot drift. Window arithmetic needs a clock the
 * test controls, so those cases run on the twin with an injected clock; Redis reads its own (TIME).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';
import { ADD_SCRIPT, TAKE_SCRIPT } from '../../src/limits/rate-limit-scripts.ts';
import { windowOf, type RateUnit } from '../../src/limits/windows.ts';

interface Limit {
  key: string;
  unit: RateUnit;
  limit: number;
  /** 1: a requests limit, 0: a tokens limit (judged only) */
  cost: 0 | 1;
}

interface Taken {
  allowed: boolean;
  limits: Array<{ used: number; waitMs: number; resetMs: number }>;
}

async function take(kv: KvStore, limits: Limit[]): Promise<Taken> {
  const args = limits.flatMap(({ unit, limit, cost }) => [windowOf(unit).bucketMs, windowOf(unit).buckets, limit, cost]);
  const reply = (await kv.runScript(TAKE_SCRIPT, limits.map((limit) => limit.key), args)) as number[];
  const entries = limits.map((_limit, index) => ({ used: Number(reply[1 + index * 3]), waitMs: Number(reply[2 + index * 3]), resetMs: Number(reply[3 + index * 3]) }));
  return { allowed: Number(reply[0]) === 1, limits: entries };
}

async function add(kv: KvStore, limits: Array<Pick<Limit, 'key' | 'unit'>>, amount: number): Promise<void> {
  await kv.runScript(ADD_SCRIPT, limits.map((limit) => limit.key), limits.flatMap(({ unit }) => [windowOf(unit).bucketMs, windowOf(unit).buckets, amount]));
}

const stores: Array<{ name: string; open(): KvStore }> = [{ name: 'memory', open: () => createMemoryStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) stores.push({ name: 'redis', open: () => createRedisStore(redisUrl, { prefix: `test:${randomUUID()}:` }) });
const opened: KvStore[] = [];
after(async () => {
  for (const store of opened) await store.close();
});

for (const store of stores) {
  describe(`rate-limit scripts on ${store.name}`, () => {
    const kv = (() => {
      const opened_ = store.open();
      opened.push(opened_);
      return opened_;
    })();
    const key = () => `rl:${randomUUID()}`;

    test('a requests limit of N admits exactly N, and the refusal says when the window frees', async () => {
      const limit: Limit = { key: key(), unit: 'rpm', limit: 3, cost: 1 };
      const verdicts = [];
      for (let index = 0; index < 5; index += 1) verdicts.push(await take(kv, [limit]));
      assert.deepEqual(verdicts.map((verdict) => verdict.allowed), [true, true, true, false, false]);
      assert.deepEqual(verdicts.map((verdict) => verdict.limits[0]!.used), [1, 2, 3, 3, 3]);
      const refused = verdicts[3]!.limits[0]!;
      assert.ok(refused.waitMs > 0 && refused.waitMs <= 60_000, `wait ${refused.waitMs}`);
      assert.ok(refused.resetMs > 0 && refused.resetMs <= 60_000);
      assert.equal(verdicts[0]!.limits[0]!.waitMs, 0);
    });

    test('concurrent takes admit exactly N', async () => {
      const limit: Limit = { key: key(), unit: 'rph', limit: 25, cost: 1 };
      const verdicts = await Promise.all(Array.from({ length: 60 }, () => take(kv, [limit])));
      assert.equal(verdicts.filter((verdict) => verdict.allowed).length, 25);
    });

    test('all or nothing: a request one limit refuses is counted by none', async () => {
      const wide: Limit = { key: key(), unit: 'rpm', limit: 100, cost: 1 };
      const narrow: Limit = { key: key(), unit: 'rpd', limit: 1, cost: 1 };
      assert.ok((await take(kv, [wide, narrow])).allowed);
      const refused = await take(kv, [wide, narrow]);
      assert.equal(refused.allowed, false);
      assert.deepEqual(refused.limits.map((entry) => entry.used), [1, 1], 'nothing was taken');
      assert.equal(refused.limits[0]!.waitMs, 0, 'the wide limit would admit it');
      assert.ok(refused.limits[1]!.waitMs > 60_000, 'a day window frees later than a minute');
      assert.equal((await take(kv, [wide])).limits[0]!.used, 2);
    });

    test('a tokens limit is judged, not counted: the answer\'s tokens are added after it', async () => {
      const tokens: Limit = { key: key(), unit: 'rpm', limit: 100, cost: 0 };
      assert.deepEqual((await take(kv, [tokens])).limits[0]!.used, 0);
      await add(kv, [tokens], 60);
      const second = await take(kv, [tokens]);
      assert.ok(second.allowed, 'under the limit: admitted');
      assert.equal(second.limits[0]!.used, 60);
      await add(kv, [tokens], 60);
      const third = await take(kv, [tokens]);
      assert.equal(third.allowed, false, '120 of 100 tokens used: the next request waits');
      assert.equal(third.limits[0]!.used, 120);
    });

    test('a limit below one request never admits, and says so with a whole window', async () => {
      const zero: Limit = { key: key(), unit: 'rpm', limit: 0.5, cost: 1 };
      const refused = await take(kv, [zero]);
      assert.equal(refused.allowed, false);
      assert.equal(refused.limits[0]!.waitMs, 60_000);
    });
  });
}

describe('rolling windows (the in-process twin, on a clock the test moves)', () => {
  let now = Date.UTC(2030, 0, 1, 12, 0, 0);
  const kv = createMemoryStore({ now: () => now });
  opened.push(kv);

  test('rpm: buckets of a second; the oldest leaves the window a minute after it was counted', async () => {
    const limit: Limit = { key: 'rpm-window', unit: 'rpm', limit: 2, cost: 1 };
    assert.ok((await take(kv, [limit])).allowed); // at 0 s
    now += 30_000;
    assert.ok((await take(kv, [limit])).allowed); // at 30 s
    now += 10_000;
    const refused = await take(kv, [limit]); // at 40 s
    assert.equal(refused.allowed, false);
    assert.equal(refused.limits[0]!.waitMs, 20_000, 'the first request leaves the window at 60 s');
    now += 20_000; // at 60 s: the first has left, the second is still in
    const admitted = await take(kv, [limit]);
    assert.ok(admitted.allowed);
    assert.equal(admitted.limits[0]!.used, 2);
    assert.equal(admitted.limits[0]!.resetMs, 30_000, 'the next to leave is the one from 30 s');
  });

  test('no burst at a window edge: a full window stays full until its buckets leave', async () => {
    const limit: Limit = { key: 'edge', unit: 'rpm', limit: 3, cost: 1 };
    now = Date.UTC(2030, 0, 1, 13, 0, 59, 500); // the last half second of a calendar minute
    for (let index = 0; index < 3; index += 1) assert.ok((await take(kv, [limit])).allowed);
    now += 1_000; // a new calendar minute: a fixed window would admit 3 more here
    assert.equal((await take(kv, [limit])).allowed, false);
    now += 58_500;
    assert.equal((await take(kv, [limit])).allowed, true, 'a minute after the burst, its bucket has left');
  });

  test('rps: tenths of a second; rph, rpd and rpw: sixtieths of their window', () => {
    assert.deepEqual([windowOf('rps').bucketMs, windowOf('rps').buckets], [100, 10]);
    assert.deepEqual([windowOf('rpm').bucketMs, windowOf('rph').bucketMs, windowOf('rpd').bucketMs, windowOf('rpw').bucketMs], [1_000, 60_000, 1_440_000, 10_080_000]);
  });

  test('a counter expires one window and one bucket after its last count', async () => {
    const limit: Limit = { key: 'expiry', unit: 'rps', limit: 1, cost: 1 };
    assert.ok((await take(kv, [limit])).allowed);
    now += 1_100;
    const again = await take(kv, [limit]);
    assert.ok(again.allowed);
    assert.equal(again.limits[0]!.used, 1, 'the old count is gone');
  });
});
