/**
 * The budget engine (src/limits/budgets.ts) over the in-process store and (with TEST_REDIS_URL) Redis: concurrent
 * bursts against a small budget, the overshoot bound of docs/decisions.md checked as a formula, releases, alerts
 * once however many settle at once, and the counter store failing: closed budgets answer 503, open ones let the
 * request through, each decision counted, and the budgets work again once the store does, without a restart.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';
import type { BudgetLimit } from '../../src/limits/budgets-limits.ts';
import { createBudgetEngine, type BudgetAlert, type BudgetEngineOptions, type Reservation } from '../../src/limits/budgets.ts';
import { createBudgetCounters } from '../../src/limits/budgets-counters.ts';
import { currentWindow } from '../../src/limits/budgets-keys.ts';
import { LimitError } from '../../src/limits/limit-error.ts';
import { inlineExhausted, resetInlineUsage } from '../../src/limits/budgets-inline.ts';
import { inlineBudget, inlineLimit } from '../../src/limits/budgets-limits.ts';

const stores: Array<{ name: string; kv: KvStore }> = [{ name: 'memory', kv: createMemoryStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) stores.push({ name: 'redis', kv: createRedisStore(redisUrl, { prefix: `test:${randomUUID()}:` }) });
after(async () => {
  for (const { kv } of stores) await kv.close();
});

function tokenBudget(limit: number, threshold = -1, onStoreFailure: 'open' | 'closed' = 'closed'): BudgetLimit {
  return {
    owner: { kind: 'policy', policyId: randomUUID(), valueKey: 'metadata._user:ada' },
    source: 'policy',
    label: 'usage limits policy "test" for metadata._user:ada',
    type: 'tokens',
    reset: 'monthly',
    limit,
    threshold,
    onStoreFailure,
    organisationId: randomUUID(),
    workspaceId: null,
  };
}

function metrics() {
  const registers = [new Registry()];
  return {
    budgetRefused: new Counter({ name: 'refused', help: 'h', labelNames: ['source', 'type'], registers }),
    budgetAlerts: new Counter({ name: 'alerts', help: 'h', labelNames: ['kind', 'source'], registers }),
    budgetStoreFailures: new Counter({ name: 'failures', help: 'h', labelNames: ['outcome'], registers }),
  };
}

async function count(counter: Counter<string>, labels: Record<string, string>): Promise<number> {
  const { values } = await counter.get();
  return values.find((value) => Object.entries(labels).every(([key, label]) => value.labels[key] === label))?.value ?? 0;
}

const usedOf = async (kv: KvStore, limit: BudgetLimit) => (await createBudgetCounters(kv).read([currentWindow(limit.owner, limit.reset, new Date()).counter]))[0]!;

for (const { name, kv } of stores) {
  describe(`budget engine on ${name}`, () => {
    const engine = (options: Partial<BudgetEngineOptions> = {}) => createBudgetEngine({ kv, ...options });

    test('a burst of 50 against room for 10 admits 10; estimates that hold settle within the limit (overshoot 0)', async () => {
      const budget = tokenBudget(1000);
      const budgets = engine();
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => budgets.reserve([budget], { tokens: 100, cost: undefined })));
      const admitted = verdicts.filter((verdict): verdict is Reservation => !(verdict instanceof LimitError));
      assert.equal(admitted.length, 10);
      const refused = verdicts.find((verdict) => verdict instanceof LimitError) as LimitError;
      assert.equal(refused.status, 429);
      assert.equal(refused.code, 'usage_limit_insufficient');
      assert.match(refused.message, /usage limits policy "test" for metadata\._user:ada/);
      admitted.forEach((reservation, index) => reservation.settle({ tokens: 60 + index * 4, cost: undefined }));
      await budgets.drain();
      const state = await usedOf(kv, budget);
      assert.ok(state.used <= 1000, `settled ${state.used}`);
      assert.equal(state.reserved, 0);
    });

    test('requests that use more than they reserved overshoot by at most their excess: sum over those in flight at the last admission', async () => {
      const budget = tokenBudget(1000);
      const budgets = engine();
      // first wave: settled within the estimate
      const first = await Promise.all(Array.from({ length: 4 }, () => budgets.reserve([budget], { tokens: 100, cost: undefined })));
      for (const reservation of first) (reservation as Reservation).settle({ tokens: 100, cost: undefined });
      await budgets.drain();
      // a burst: every admitted request is in flight at the last admission, and each uses 130 of its 100
      const burst = await Promise.all(Array.from({ length: 30 }, () => budgets.reserve([budget], { tokens: 100, cost: undefined })));
      const inFlight = burst.filter((verdict): verdict is Reservation => !(verdict instanceof LimitError));
      assert.equal(inFlight.length, 6);
      for (const reservation of inFlight) reservation.settle({ tokens: 130, cost: undefined });
      await budgets.drain();
      const bound = inFlight.length * (130 - 100);
      const { used } = await usedOf(kv, budget);
      assert.equal(used, 400 + 6 * 130);
      assert.ok(used - 1000 <= bound, `overshoot ${used - 1000} within ${bound}`);
      const after = await budgets.reserve([budget], { tokens: 0, cost: undefined });
      assert.ok(after instanceof LimitError && after.code === 'usage_limit_exhausted', 'used up: even a zero reservation is refused');
    });

    test('a release gives the reservation back; usage unknown charges the reservation', async () => {
      const budget = tokenBudget(100);
      const budgets = engine();
      const failed = (await budgets.reserve([budget], { tokens: 100, cost: undefined })) as Reservation;
      assert.ok(await budgets.reserve([budget], { tokens: 1, cost: undefined }) instanceof LimitError);
      failed.release();
      failed.settle({ tokens: 100, cost: undefined });
      await failed.settled;
      const unknown = (await budgets.reserve([budget], { tokens: 40, cost: undefined })) as Reservation;
      unknown.settle(undefined);
      await budgets.drain();
      assert.deepEqual([(await usedOf(kv, budget)).used, (await usedOf(kv, budget)).reserved], [40, 0]);
    });

    test('a charge adds what was spent without a reservation: from the stored usage, past the limit, alerts once', async () => {
      const budget = tokenBudget(100, 50);
      const cost = { ...tokenBudget(1_000), type: 'cost' as const };
      const alerts: BudgetAlert[] = [];
      // the counter is gone (a restarted store): the charge starts it from the stored usage, as a reservation would
      const budgets = engine({ storedUsage: async () => 40, onAlert: (alert) => alerts.push(alert) });
      await budgets.charge([budget, cost], { tokens: 30, cost: undefined });
      assert.deepEqual([(await usedOf(kv, budget)).used, (await usedOf(kv, budget)).reserved], [70, 0]);
      assert.equal((await usedOf(kv, cost)).used, -1, 'a cost not known charges a cost budget nothing');
      const held = (await budgets.reserve([budget], { tokens: 30, cost: undefined })) as Reservation;
      void budgets.charge([budget], { tokens: 50, cost: undefined });
      await budgets.drain();
      assert.deepEqual([(await usedOf(kv, budget)).used, (await usedOf(kv, budget)).reserved], [120, 30], 'never refused; the reservation held stays');
      held.settle({ tokens: 10, cost: undefined });
      await budgets.drain();
      assert.equal((await usedOf(kv, budget)).used, 130);
      assert.deepEqual(alerts.map((alert) => alert.kind).sort(), ['exhausted', 'threshold']);
    });

    test('the threshold alert and the exhaustion are reported once, however many settle at once', async () => {
      const budget = tokenBudget(1000, 500);
      const alerts: BudgetAlert[] = [];
      const counters = metrics();
      const budgets = engine({ onAlert: (alert) => alerts.push(alert), metrics: counters });
      const reservations = await Promise.all(Array.from({ length: 10 }, () => budgets.reserve([budget], { tokens: 100, cost: undefined })));
      for (const reservation of reservations) (reservation as Reservation).settle({ tokens: 120, cost: undefined });
      await budgets.drain();
      assert.deepEqual(alerts.map((alert) => alert.kind).sort(), ['exhausted', 'threshold']);
      assert.ok(alerts.find((alert) => alert.kind === 'threshold')!.used >= 500);
      assert.equal(await count(counters.budgetAlerts, { kind: 'threshold', source: 'policy' }), 1);
      assert.ok(await budgets.exhausted(budget));
    });

    test('the store failing: a closed budget answers 503, an open one lets through; counted; back without a restart', async () => {
      let down = true;
      const flaky: KvStore = { ...kv, runScript: (...args) => (down ? Promise.reject(new Error('connection refused')) : kv.runScript(...args)) };
      const counters = metrics();
      const errors: unknown[] = [];
      const budgets = createBudgetEngine({ kv: flaky, metrics: counters, coolDownMs: 0, onStoreError: (error) => errors.push(error) });
      const closed = tokenBudget(100);
      const refused = await budgets.reserve([closed], { tokens: 1, cost: undefined });
      assert.ok(refused instanceof LimitError);
      assert.equal(refused.status, 503);
      assert.equal(refused.code, 'usage_limit_store_unavailable');
      const open = tokenBudget(100, -1, 'open');
      assert.ok(!((await budgets.reserve([open], { tokens: 1, cost: undefined })) instanceof LimitError));
      assert.equal(await count(counters.budgetStoreFailures, { outcome: 'closed' }), 1);
      assert.equal(await count(counters.budgetStoreFailures, { outcome: 'open' }), 1);
      assert.ok(errors.length >= 1);
      down = false;
      const back = await budgets.reserve([closed], { tokens: 100, cost: undefined });
      assert.ok(!(back instanceof LimitError), 'the store answers again: the budget counts again');
      down = true;
      (back as Reservation).settle({ tokens: 50, cost: undefined });
      await budgets.drain();
      assert.equal(await count(counters.budgetStoreFailures, { outcome: 'settle_lost' }), 1);
    });

    test('budgets of several owners are reserved together: the one that does not fit refuses for all', async () => {
      const roomy = tokenBudget(1000);
      const tight = { ...tokenBudget(10), source: 'api_key' as const, label: 'the usage limit (usage_limits) of API key k1' };
      const counters = metrics();
      const budgets = engine({ metrics: counters });
      const refused = await budgets.reserve([roomy, tight], { tokens: 50, cost: undefined });
      assert.ok(refused instanceof LimitError);
      assert.match(refused.message, /API key k1/);
      assert.equal((await usedOf(kv, roomy)).reserved, 0);
      assert.equal(await count(counters.budgetRefused, { source: 'api_key', type: 'tokens' }), 1);
    });

    test('an API key\'s inline budget: exhausted once used up, and reset_usage starts its window from zero', async () => {
      const key = { kind: 'api_key' as const, id: randomUUID(), organisationId: randomUUID(), workspaceId: randomUUID(), usageLimits: { credit_limit: 10, type: 'tokens', periodic_reset: 'weekly' } };
      const limit = inlineLimit({ kind: 'api_key', id: key.id }, inlineBudget(key.usageLimits)!, { ...key, name: key.id });
      const budgets = engine();
      assert.equal(await inlineExhausted(budgets, key), false);
      ((await budgets.reserve([limit], { tokens: 10, cost: undefined })) as Reservation).settle({ tokens: 12, cost: undefined });
      await budgets.drain();
      assert.equal(await inlineExhausted(budgets, key), true);
      assert.ok((await budgets.reserve([limit], { tokens: 0, cost: undefined })) instanceof LimitError);
      await resetInlineUsage(kv, key, new Date());
      assert.equal(await inlineExhausted(budgets, key), false);
      assert.ok(!((await budgets.reserve([limit], { tokens: 10, cost: undefined })) instanceof LimitError));
      assert.equal(await inlineExhausted(budgets, { ...key, usageLimits: null }), false, 'no budget: never exhausted');
    });
  });
}
