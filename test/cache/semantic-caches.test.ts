/**
 * A node's semantic caches and their replication: two "nodes" share one bus (a single in-process store, or two
 * Redis connections with one random prefix when TEST_REDIS_URL is set). Entries reach every node once, spaces
 * and dimension counts never mix, memory stays bounded.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createSemanticCaches, SEMANTIC_CHANNEL, type SemanticCaches, type WarningLog } from '../../src/cache/semantic/semantic-caches.ts';
import { encodeEntry } from '../../src/cache/semantic/replication.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';

const opened: Array<{ close(): Promise<void> }> = [];
after(async () => {
  for (const item of opened.reverse()) await item.close();
});

/** Two kv connections that see each other's messages, like two nodes on one Redis. */
const buses: Array<{ name: string; pair(): [KvStore, KvStore] }> = [
  {
    name: 'in-process store',
    pair: () => {
      const store = createMemoryStore();
      return [store, store];
    },
  },
];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  buses.push({
    name: 'Redis',
    pair: () => {
      const prefix = `test:${randomUUID()}:`;
      return [createRedisStore(redisUrl, { prefix }), createRedisStore(redisUrl, { prefix })];
    },
  });
}

function silentLog(): WarningLog & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (_details, message) => void messages.push(message) };
}

async function node(kv: KvStore, options: { now?: () => number; maxEntries?: number; maxSpaces?: number } = {}) {
  const log = silentLog();
  const caches = await createSemanticCaches({ kv, nodeId: randomUUID(), log, ...options });
  opened.push(caches);
  return { caches, log };
}

/** Resolves once the bus has delivered a message published after this call (to every subscriber before it). */
async function delivered(kv: KvStore): Promise<() => Promise<void>> {
  let seen: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (seen = resolve));
  const unsubscribe = await kv.subscribe(SEMANTIC_CHANNEL, () => seen());
  return async () => {
    await arrived;
    await unsubscribe();
  };
}

const unit = (...values: number[]) => Float32Array.from(values);
const scope = { namespace: 'team-a', model: 'gpt-4o-mini', variant: 'v1' };

for (const bus of buses) {
  describe(`semantic caches over the ${bus.name}`, () => {
    test('an entry is found on the storing node at once and on the other node after its message, once each', async () => {
      const [kvA, kvB] = bus.pair();
      opened.push(kvA);
      if (kvB !== kvA) opened.push(kvB);
      const a = await node(kvA);
      const b = await node(kvB);
      const arrival = await delivered(kvB);
      a.caches.store('space', { ...scope, embedding: unit(1, 0, 0), key: 'k1', maxAgeSeconds: 60 });
      assert.equal(a.caches.lookup('space', { ...scope, embedding: unit(1, 0.01, 0) })?.key, 'k1');
      await arrival();
      assert.equal(b.caches.lookup('space', { ...scope, embedding: unit(1, 0.01, 0) })?.key, 'k1');
      assert.equal(a.caches.size, 1, 'the storing node skipped its own message');
      assert.equal(b.caches.size, 1);
      assert.equal(b.caches.lookup('space', { ...scope, namespace: 'team-b', embedding: unit(1, 0, 0) }), undefined, 'scope travels with the entry');
      assert.deepEqual([...a.log.messages, ...b.log.messages], []);
    });
  });
}

describe('semantic caches on one node', () => {
  test('spaces and dimension counts are separate indexes; a lookup never creates one', async () => {
    const kv = createMemoryStore();
    opened.push(kv);
    const { caches } = await node(kv);
    assert.equal(caches.lookup('space', { ...scope, embedding: unit(1, 0, 0) }), undefined);
    assert.equal(caches.size, 0);
    caches.store('model-a', { ...scope, embedding: unit(1, 0, 0), key: 'a3', maxAgeSeconds: 60 });
    caches.store('model-a', { ...scope, embedding: unit(1, 0, 0, 0), key: 'a4', maxAgeSeconds: 60 });
    caches.store('model-b', { ...scope, embedding: unit(1, 0, 0), key: 'b3', maxAgeSeconds: 60 });
    assert.equal(caches.lookup('model-a', { ...scope, embedding: unit(1, 0, 0) })?.key, 'a3');
    assert.equal(caches.lookup('model-a', { ...scope, embedding: unit(1, 0, 0, 0) })?.key, 'a4');
    assert.equal(caches.lookup('model-b', { ...scope, embedding: unit(1, 0, 0) })?.key, 'b3');
    assert.equal(caches.lookup('model-c', { ...scope, embedding: unit(1, 0, 0) }), undefined);
    caches.forget('model-a', 3, 'a3');
    assert.equal(caches.lookup('model-a', { ...scope, embedding: unit(1, 0, 0) }), undefined);
    assert.equal(caches.size, 2);
  });

  test('memory is bounded: maxEntries per space, maxSpaces spaces (least recently used dropped)', async () => {
    const kv = createMemoryStore();
    opened.push(kv);
    const { caches } = await node(kv, { maxEntries: 2, maxSpaces: 2 });
    for (const [index, key] of ['k1', 'k2', 'k3'].entries()) {
      caches.store('s1', { ...scope, embedding: unit(1, index, 0), key, maxAgeSeconds: 60 });
    }
    assert.equal(caches.size, 2);
    caches.store('s2', { ...scope, embedding: unit(1, 0, 0), key: 'x', maxAgeSeconds: 60 });
    assert.ok(caches.lookup('s1', { ...scope, embedding: unit(1, 2, 0) }), 's1 used last');
    caches.store('s3', { ...scope, embedding: unit(1, 0, 0), key: 'y', maxAgeSeconds: 60 });
    assert.equal(caches.lookup('s2', { ...scope, embedding: unit(1, 0, 0) }), undefined, 's2 was the least recently used space');
    assert.equal(caches.lookup('s3', { ...scope, embedding: unit(1, 0, 0) })?.key, 'y');
    assert.equal(caches.size, 3);
  });

  test('replicated entries: expired or malformed ones are not added; after close nothing is', async () => {
    const kv = createMemoryStore();
    opened.push(kv);
    let now = 1_000_000;
    const { caches, log } = await node(kv, { now: () => now });
    const message = (key: string, expiresAt: number) =>
      encodeEntry({ node: 'other', space: 's', key, ...scope, expiresAt, embedding: unit(1, 0, 0) });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await kv.publish(SEMANTIC_CHANNEL, message('late', now));
    await kv.publish(SEMANTIC_CHANNEL, 'garbage');
    await kv.publish(SEMANTIC_CHANNEL, message('fresh', now + 10_000));
    await settle();
    assert.equal(caches.size, 1);
    assert.deepEqual(log.messages, ['semantic cache: ignored a replicated entry']);
    assert.equal(caches.lookup('s', { ...scope, embedding: unit(1, 0, 0) })?.key, 'fresh');
    now += 10_000;
    assert.equal(caches.lookup('s', { ...scope, embedding: unit(1, 0, 0) }), undefined, 'the sender\'s expiry holds here');
    await caches.close();
    await kv.publish(SEMANTIC_CHANNEL, message('after-close', now + 10_000));
    await settle();
    assert.equal(caches.size, 0);
  });
});
