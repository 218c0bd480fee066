/**
 * The budget scripts (src/limits/budgets-script.ts) through their typed calls, on the in-process twin and (with
 * TEST_REDIS_URL) the Lua on Redis: the same cases must answer alike. Reservation math: admission never lets
 * settled + reserved pass the limit, all or nothing over several budgets, settlement and release, alerts once,
 * resets, seeds, lapsed reservations, and a concurrent burst that admits exactly what fits.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { createBudgetCounters, type ReserveItem, type SettleItem } from '../../src/limits/budgets-counters.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';

interface Backend {
  name: 'memory' | 'redis';
  store: KvStore;
  /** lets `ms` of the store's time pass */
  advance(ms: number): Promise<void>;
}

let clock = 1_700_000_000_000;
const backends: Backend[] = [{ name: 'memory', store: createMemoryStore({ now: () => clock }), advance: async (ms) => void (clock += ms) }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) backends.push({ name: 'redis', store: createRedisStore(redisUrl, { prefix: `test:${randomUUID()}:` }), advance: (ms) => sleep(ms) });
after(async () => {
  for (const backend of backends) await backend.store.close();
});

const reserveItem = (counter: string, amount: number, limit: number, seed = 0): ReserveItem => ({ counter, amount, limit, seed, expiresAt: 0 });
const settleItem = (counter: string, reserved: number, actual: number, limit: number, threshold = -1): SettleItem => ({ counter, reserved, actual, limit, threshold, expiresAt: 0 });

for (const backend of backends) {
  describe(`budget counters on ${backend.name}`, () => {
    const counters = createBudgetCounters(backend.store);
    const fresh = () => `budget:test:${randomUUID()}`;

    test('a reservation that fits is held; one that does not is refused, naming the budget, used and reserved', async () => {
      const counter = fresh();
      assert.deepEqual(await counters.reserve('a', [reserveItem(counter, 60, 100)]), { ok: true });
      assert.deepEqual(await counters.reserve('b', [reserveItem(counter, 40, 100)]), { ok: true }, 'exactly up to the limit');
      assert.deepEqual(await counters.reserve('c', [reserveItem(counter, 1, 100)]), { ok: false, index: 0, used: 0, reserved: 100 });
      const [state] = await counters.read([counter]);
      assert.deepEqual(state, { used: 0, reserved: 100, thresholdAlerted: -1, exhaustedAt: -1 });
    });

    test('all or nothing: when one budget refuses, none holds the reservation', async () => {
      const [roomy, tight] = [fresh(), fresh()];
      const refused = await counters.reserve('a', [reserveItem(roomy, 50, 1000), reserveItem(tight, 50, 10)]);
      assert.deepEqual(refused, { ok: false, index: 1, used: 0, reserved: 0 });
      const states = await counters.read([roomy, tight]);
      assert.deepEqual(states.map((state) => state.reserved), [0, 0]);
    });

    test('settling replaces the reservation by the real amount; a release gives it back', async () => {
      const counter = fresh();
      await counters.reserve('a', [reserveItem(counter, 50, 100)]);
      await counters.reserve('b', [reserveItem(counter, 30, 100)]);
      const [settled] = await counters.settle('a', [settleItem(counter, 50, 20, 100)]);
      assert.deepEqual(settled, { used: 20, alerted: false, exhausted: false });
      await counters.settle('b', [settleItem(counter, 30, 0, 100)]);
      const [state] = await counters.read([counter]);
      assert.deepEqual([state!.used, state!.reserved], [20, 0]);
      // a settlement of a reservation that is gone (lapsed, or settled already) frees nothing twice
      await counters.settle('b', [settleItem(counter, 30, 0, 100)]);
      assert.equal((await counters.read([counter]))[0]!.reserved, 0);
    });

    test('used up: refused even for a zero reservation; usage may settle past the limit (the overshoot)', async () => {
      const counter = fresh();
      await counters.reserve('a', [reserveItem(counter, 10, 100)]);
      const [result] = await counters.settle('a', [settleItem(counter, 10, 130, 100)]);
      assert.deepEqual(result, { used: 130, alerted: false, exhausted: true });
      assert.deepEqual(await counters.reserve('b', [reserveItem(counter, 0, 100)]), { ok: false, index: 0, used: 130, reserved: 0 });
    });

    test('the threshold alert and the exhaustion are reported once per window; a reset clears them and the usage, not the reservations', async () => {
      const counter = fresh();
      const results = [];
      for (const id of ['a', 'b', 'c']) {
        await counters.reserve(id, [reserveItem(counter, 40, 100)]);
        results.push((await counters.settle(id, [settleItem(counter, 40, 40, 100, 70)]))[0]);
      }
      assert.deepEqual(results.map((result) => [result!.used, result!.alerted, result!.exhausted]), [[40, false, false], [80, true, false], [120, false, true]]);
      assert.deepEqual((await counters.read([counter]))[0], { used: 120, reserved: 0, thresholdAlerted: 70, exhaustedAt: 100 });
      await counters.reset(counter);
      await counters.reserve('held', [reserveItem(counter, 25, 100)]);
      await counters.reset(counter);
      assert.deepEqual((await counters.read([counter]))[0], { used: 0, reserved: 25, thresholdAlerted: -1, exhaustedAt: -1 });
      await counters.settle('held', [settleItem(counter, 25, 80, 100, 70)]);
      assert.deepEqual((await counters.read([counter]))[0], { used: 80, reserved: 0, thresholdAlerted: 70, exhaustedAt: -1 }, 'alerted again after the reset');
    });

    test('a raised threshold or limit alerts again once reached', async () => {
      const counter = fresh();
      await counters.settle('a', [settleItem(counter, 0, 100, 100, 50)]);
      const [raised] = await counters.settle('b', [settleItem(counter, 0, 100, 200, 150)]);
      assert.deepEqual(raised, { used: 200, alerted: true, exhausted: true });
    });

    test('the seed starts a new counter only; a counter that exists keeps its usage', async () => {
      const counter = fresh();
      assert.deepEqual(await counters.reserve('a', [reserveItem(counter, 10, 100, 95)]), { ok: false, index: 0, used: 95, reserved: 0 });
      assert.deepEqual(await counters.reserve('b', [reserveItem(counter, 5, 100, 0)]), { ok: true }, 'the seed of 95 stays, 0 is not applied');
      assert.equal((await counters.read([counter]))[0]!.used, 95);
      assert.equal((await counters.read([fresh()]))[0]!.used, -1, 'a counter never used reads -1');
    });

    test('a reservation its node never settles lapses, and frees its amount', async () => {
      const lapsing = createBudgetCounters(backend.store, { lapseMs: 40 });
      const counter = fresh();
      await lapsing.reserve('stuck', [reserveItem(counter, 100, 100)]);
      assert.equal((await lapsing.reserve('next', [reserveItem(counter, 1, 100)])).ok, false);
      await backend.advance(80);
      assert.deepEqual(await lapsing.reserve('next', [reserveItem(counter, 100, 100)]), { ok: true });
      assert.equal((await lapsing.read([counter]))[0]!.reserved, 100);
    });

    test('a concurrent burst admits exactly what fits: settled + reserved never passes the limit', async () => {
      const counter = fresh();
      const verdicts = await Promise.all(Array.from({ length: 60 }, (_, index) => counters.reserve(`r${index}`, [reserveItem(counter, 7, 100)])));
      assert.equal(verdicts.filter((verdict) => verdict.ok).length, 14, 'floor(100 / 7) reservations');
      assert.equal((await counters.read([counter]))[0]!.reserved, 98);
    });
  });
}
