/** The "held in process, invalidated over pub/sub" helper behind saved guardrails and saved configs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInvalidatedCache } from '../src/kv/invalidated-cache.ts';
import { createMemoryStore } from '../src/kv/memory-store.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a value is loaded once: concurrent misses share the load, hits never reload, "not found" is cached too', async () => {
  const cache = await createInvalidatedCache<string | undefined>(createMemoryStore(), 'things.changed');
  let loads = 0;
  const load = async () => {
    loads += 1;
    await settle();
    return loads === 1 ? 'v1' : 'again';
  };
  assert.deepEqual(await Promise.all([cache.get('k', load), cache.get('k', load)]), ['v1', 'v1']);
  assert.equal(await cache.get('k', load), 'v1');
  assert.equal(loads, 1);
  let misses = 0;
  for (let i = 0; i < 3; i += 1) await cache.get('unknown', async () => { misses += 1; return undefined; });
  assert.equal(misses, 1);
  await cache.close();
});

test('invalidate() drops this node at once and every node sharing the store when the message arrives', async () => {
  const kv = createMemoryStore();
  const nodeA = await createInvalidatedCache<number>(kv, 'things.changed');
  const nodeB = await createInvalidatedCache<number>(kv, 'things.changed');
  const other = await createInvalidatedCache<number>(kv, 'others.changed');
  let version = 1;
  const load = async () => version;
  for (const cache of [nodeA, nodeB, other]) assert.equal(await cache.get('k', load), 1);
  version = 2;
  const invalidating = nodeA.invalidate();
  assert.equal(await nodeA.get('k', load), 2, 'the node that changed it sees the change before the message returns');
  await invalidating;
  await settle();
  assert.equal(await nodeB.get('k', load), 2, 'the other node dropped its copy');
  assert.equal(await other.get('k', load), 1, 'another channel is untouched');
  await Promise.all([nodeA.close(), nodeB.close(), other.close()]);
});

test('a load under way when an invalidation arrives is not kept; a failed load is not kept either', async () => {
  const cache = await createInvalidatedCache<string>(createMemoryStore(), 'things.changed');
  let release!: () => void;
  const stale = cache.get('k', () => new Promise<string>((resolve) => { release = () => resolve('read before the change'); }));
  await cache.invalidate();
  release();
  assert.equal(await stale, 'read before the change');
  assert.equal(await cache.get('k', async () => 'fresh'), 'fresh');
  await assert.rejects(cache.get('e', async () => { throw new Error('database down'); }));
  assert.equal(await cache.get('e', async () => 'recovered'), 'recovered');
  await cache.close();
});
