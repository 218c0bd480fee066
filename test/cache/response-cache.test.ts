/**
 * The response cache over each KvStore: the in-process store always, Redis when TEST_REDIS_URL is set (a random
 * key prefix per run, every store closed in `after`). Expiry is checked with real short TTLs (waits ≤ 150 ms)
 * and, on the memory store, with an injected clock.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { cacheKey } from '../../src/cache/cache-key.ts';
import { createResponseCache, DEFAULT_MAX_ENTRY_BYTES } from '../../src/cache/response-cache.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';

const opened: KvStore[] = [];
const backends: Array<{ name: string; create(): KvStore }> = [{ name: 'memory', create: () => createMemoryStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  const prefix = `test:${randomUUID()}:`;
  backends.push({ name: 'redis', create: () => createRedisStore(redisUrl, { prefix }) });
}
function open(create: () => KvStore): KvStore {
  const store = create();
  opened.push(store);
  return store;
}
after(async () => {
  for (const store of opened) await store.close();
});

const answer = { status: 200, contentType: 'application/json', body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}' };
const keyOf = (namespace: string, content = 'Hi') =>
  cacheKey({ provider: 'openai', route: 'chat/completions', namespace, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } });

for (const backend of backends) {
  describe(`response cache on the ${backend.name} store`, () => {
    const kv = open(backend.create);
    const cache = createResponseCache({ kv });

    test('a stored answer is returned whole, with its creation time', async () => {
      const key = randomUUID();
      const before = Date.now();
      assert.equal(await cache.set(key, answer, 60), 'stored');
      const hit = await cache.get(key);
      assert.ok(hit);
      assert.deepEqual({ status: hit.status, contentType: hit.contentType, body: hit.body }, answer);
      assert.ok(hit.createdAt >= before && hit.createdAt <= Date.now());
      assert.equal(await cache.get(randomUUID()), undefined);
    });

    test('an entry expires after its max age', async () => {
      const key = randomUUID();
      await cache.set(key, answer, 0.08);
      assert.ok(await cache.get(key), 'fresh before its max age');
      await sleep(130);
      assert.equal(await cache.get(key), undefined);
    });

    test('errors are never stored', async () => {
      for (const status of [400, 401, 404, 429, 500, 502, 503, 304, 199]) {
        const key = randomUUID();
        assert.equal(await cache.set(key, { ...answer, status }, 60), 'not_success', `status ${status}`);
        assert.equal(await cache.get(key), undefined);
        assert.equal(await kv.get(`cache:response:${key}`), null, 'nothing reached the store');
      }
    });

    test('an answer without a positive max age is not stored', async () => {
      const key = randomUUID();
      assert.equal(await cache.set(key, answer, 0), 'no_max_age');
      assert.equal(await cache.set(key, answer, Number.NaN), 'no_max_age');
      assert.equal(await cache.get(key), undefined);
    });

    test('entries above maxEntryBytes are not stored; smaller ones are', async () => {
      const small = createResponseCache({ kv, maxEntryBytes: 1_000 });
      const big = randomUUID();
      assert.equal(await small.set(big, { ...answer, body: 'x'.repeat(1_000) }, 60), 'too_large');
      assert.equal(await small.get(big), undefined);
      // multi-byte text counts in bytes, not UTF-16 units: 400 × 3 bytes is over 1,000
      assert.equal(await small.set(randomUUID(), { ...answer, body: '€'.repeat(400) }, 60), 'too_large');
      assert.equal(await small.set(randomUUID(), { ...answer, body: 'x'.repeat(500) }, 60), 'stored');
      assert.equal(DEFAULT_MAX_ENTRY_BYTES, 1024 * 1024);
      assert.equal(await cache.set(randomUUID(), { ...answer, body: 'x'.repeat(DEFAULT_MAX_ENTRY_BYTES) }, 60), 'too_large');
    });

    test('namespaces are isolated: the same request in another namespace misses', async () => {
      const content = randomUUID();
      await cache.set(keyOf('team-a', content), answer, 60);
      assert.ok(await cache.get(keyOf('team-a', content)));
      assert.equal(await cache.get(keyOf('team-b', content)), undefined);
      assert.equal(await cache.get(keyOf('', content)), undefined);
    });

    test('delete removes an entry; an unreadable entry is a miss', async () => {
      const key = randomUUID();
      await cache.set(key, answer, 60);
      await cache.delete(key);
      assert.equal(await cache.get(key), undefined);
      await kv.set(`cache:response:${key}`, '{"status":"nope"', 60_000);
      assert.equal(await cache.get(key), undefined);
    });
  });
}

describe('response cache with an injected clock', () => {
  test('max age is honoured on the cache clock even while the store still holds the entry', async () => {
    let now = 1_000_000;
    const cache = createResponseCache({ kv: open(() => createMemoryStore()), now: () => now });
    await cache.set('k', answer, 30);
    now += 29_999;
    assert.equal((await cache.get('k'))?.createdAt, 1_000_000);
    now += 1;
    assert.equal(await cache.get('k'), undefined);
  });

  test('the memory store stays bounded by its entry count (LRU)', async () => {
    const cache = createResponseCache({ kv: open(() => createMemoryStore({ maxEntries: 3 })) });
    for (const key of ['a', 'b', 'c', 'd']) await cache.set(key, answer, 60);
    assert.equal(await cache.get('a'), undefined);
    assert.ok(await cache.get('d'));
  });
});
