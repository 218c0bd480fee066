/**
 * The rate limiter over a counter store that fails (src/limits/rate-limiter.ts): each limit's failure mode
 * decides (open lets through, closed refuses), every such decision is counted, a store that does not answer in
 * time counts as failed, and the limits come back by themselves once the store does, without a restart.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry, Counter } from 'prom-client';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import type { KvStore } from '../../src/kv/store.ts';
import { createRateLimiter } from '../../src/limits/rate-limiter.ts';
import { rateLimitRefusal } from '../../src/limits/rate-limit-refusal.ts';
import { inlineRateLimits, inlineRules, policyRule, type RateLimitRule } from '../../src/limits/rate-limit-rules.ts';
import { windowOf } from '../../src/limits/windows.ts';

type Mode = 'up' | 'down' | 'hang';

/** The in-process store, posing as Redis, whose scripts fail or hang on demand. */
function flakyStore(): { kv: KvStore; set(mode: Mode): void; calls: () => number } {
  const inner = createMemoryStore();
  let mode: Mode = 'up';
  let calls = 0;
  const kv: KvStore = {
    ...inner,
    kind: 'redis',
    async runScript(script, keys, args) {
      calls += 1;
      if (mode === 'down') throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      if (mode === 'hang') return new Promise(() => {});
      return inner.runScript(script, keys, args);
    },
  };
  return { kv, set: (next) => { mode = next; }, calls: () => calls };
}

function rule(overrides: Partial<RateLimitRule> = {}): RateLimitRule {
  return { counterKey: `rl:test:${Math.random()}`, source: 'policy', label: 'rate limits policy "p" (id) for api_key:k', type: 'requests', window: windowOf('rpm'), limit: 2, onStoreFailure: 'open', ...overrides };
}

function metrics() {
  const registry = new Registry();
  const rateLimitStoreFailures = new Counter({ name: 'failures', help: 'h', labelNames: ['outcome'], registers: [registry] });
  const count = async (outcome: string) => (await rateLimitStoreFailures.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  return { rateLimitStoreFailures, count };
}

describe('rate limiter', () => {
  test('refusals name the limit that frees last, with the numbers for the headers', async () => {
    const limiter = createRateLimiter({ kv: createMemoryStore() });
    const minute = rule({ limit: 1, label: 'minute' });
    const day = rule({ limit: 1, window: windowOf('rpd'), label: 'day' });
    assert.deepEqual(await limiter.take([minute, day]), { allowed: true });
    const refused = await limiter.take([minute, day]);
    assert.equal(refused.allowed, false);
    assert.ok(!refused.allowed && !refused.storeDown);
    assert.equal(refused.rule.label, 'day');
    const error = rateLimitRefusal(refused);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.match(error.message, /^Rate limit exceeded: day allows 1 requests per day\./);
    assert.equal(error.headers['x-ratelimit-limit'], '1');
    assert.equal(error.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(error.headers['retry-after']) > 60, error.headers['retry-after']);
    assert.equal(error.headers['x-ratelimit-reset'], error.headers['retry-after']);
  });

  test('store down: open limits let requests through, closed ones refuse with a 503; each decision is counted', async () => {
    const store = flakyStore();
    const counters = metrics();
    const errors: unknown[] = [];
    const limiter = createRateLimiter({ kv: store.kv, metrics: counters, onStoreError: (error) => errors.push(error) });
    store.set('down');
    assert.deepEqual(await limiter.take([rule()]), { allowed: true });
    const closed = await limiter.take([rule(), rule({ onStoreFailure: 'closed', label: 'strict' })]);
    assert.ok(!closed.allowed && closed.storeDown);
    const error = rateLimitRefusal(closed);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'rate_limit_store_unavailable');
    assert.ok(Number(error.headers['retry-after']) >= 1);
    assert.equal(await counters.count('open'), 1);
    assert.equal(await counters.count('closed'), 1);
    assert.equal(errors.length, 1, 'an outage is logged once, not per request');
  });

  test('after a failure the store is left alone for the cool-down, then tried again: the limits come back', async () => {
    let now = 1_000_000;
    const store = flakyStore();
    const limiter = createRateLimiter({ kv: store.kv, coolDownMs: 1_000, now: () => now });
    const limit = rule({ limit: 1 });
    store.set('down');
    assert.ok((await limiter.take([limit])).allowed);
    const callsWhileDown = store.calls();
    store.set('up');
    assert.ok((await limiter.take([limit])).allowed, 'still cooling down: decided without the store');
    assert.equal(store.calls(), callsWhileDown, 'the store was not asked');
    now += 1_001;
    assert.ok((await limiter.take([limit])).allowed, 'the store is back: this one is counted');
    assert.equal((await limiter.take([limit])).allowed, false, 'and the limit holds again');
  });

  test('a store that does not answer in time counts as failed', async () => {
    const store = flakyStore();
    const counters = metrics();
    const limiter = createRateLimiter({ kv: store.kv, timeoutMs: 20, metrics: counters });
    store.set('hang');
    assert.deepEqual(await limiter.take([rule()]), { allowed: true });
    assert.equal(await counters.count('open'), 1);
  });

  test('tokens that cannot be counted are counted as lost, never thrown', async () => {
    const store = flakyStore();
    const counters = metrics();
    const limiter = createRateLimiter({ kv: store.kv, metrics: counters });
    store.set('down');
    await limiter.addTokens([rule({ type: 'tokens' })], 42);
    assert.equal(await counters.count('tokens_lost'), 1);
  });
});

describe('rules', () => {
  test('inline limits: read leniently, an array or one object; the lower of two limits on one counter wins', () => {
    assert.deepEqual(inlineRateLimits(null), []);
    assert.deepEqual(inlineRateLimits({ type: 'requests', unit: 'rpm', value: 5 }), [{ type: 'requests', unit: 'rpm', value: 5 }]);
    const stored = [{ type: 'requests', unit: 'rpm', value: 5 }, { type: 'tokens', unit: 'rpw', value: 100 }, { type: 'x', unit: 'rpm', value: 1 }, { type: 'requests', unit: 'rpy', value: 1 }, 'junk'];
    const limits = inlineRateLimits(stored);
    assert.deepEqual(limits.map((limit) => `${limit.type}/${limit.unit}`), ['requests/rpm', 'tokens/rpw']);
    assert.equal(inlineRateLimits(stored), limits, 'parsed once per stored value');
    const rules = inlineRules('api_key', 'k1', [{ type: 'requests', unit: 'rpm', value: 9 }, { type: 'requests', unit: 'rpm', value: 4 }]);
    assert.equal(rules.length, 1);
    assert.equal(rules[0]!.limit, 4);
    assert.equal(rules[0]!.counterKey, 'rl:k:k1:requests:rpm');
  });

  test('a policy\'s counter is per value key and unit; a long value key is hashed', () => {
    const policy = { id: 'p1', name: 'per user', type: 'requests' as const, unit: 'rpm' as const, value: 3, match: () => undefined };
    const short = policyRule(policy, 'metadata._user:ada');
    assert.equal(short.counterKey, 'rl:p:p1:rpm:metadata._user:ada');
    assert.equal(short.label, 'rate limits policy "per user" (p1) for metadata._user:ada');
    assert.equal(short.onStoreFailure, 'open');
    assert.match(policyRule(policy, `metadata._user:${'x'.repeat(300)}`).counterKey, /^rl:p:p1:rpm:sha256:[0-9a-f]{64}$/);
    assert.notEqual(policyRule({ ...policy, unit: 'rph' }, 'a').counterKey, policyRule(policy, 'a').counterKey);
  });
});
