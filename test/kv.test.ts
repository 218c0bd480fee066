/**
 * The key-value store contract, for the in-process store and (when TEST_REDIS_URL is set) Redis. Each Redis
 * store uses a random prefix, so runs never see each other's keys; every store is closed in `after`.
 * Expiry is time-based, so the ttl tests use short ttls and real (short) waits; messages are awaited, never slept on.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createMemoryStore } from '../src/kv/memory-store.ts';
import { createRedisStore } from '../src/kv/redis-store.ts';
import type { KvStore } from '../src/kv/store.ts';

interface Backend {
  name: 'memory' | 'redis';
  /** Redis: every store of this run shares one random prefix unless another is given */
  create(prefix?: string): KvStore;
}

const runPrefix = `test:${randomUUID()}:`;
const backends: Backend[] = [{ name: 'memory', create: () => createMemoryStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  backends.push({ name: 'redis', create: (prefix = runPrefix) => createRedisStore(redisUrl, { prefix }) });
}

/** every store any test opened; all closed when the file ends so no connection keeps the process alive */
const opened = new Set<KvStore>();
function open(backend: Backend, prefix?: string): KvStore {
  const store = backend.create(prefix);
  opened.add(store);
  return store;
}
async function close(store: KvStore): Promise<void> {
  opened.delete(store);
  await store.close();
}
after(async () => {
  for (const store of opened) await store.close();
  opened.clear();
});

/** resolves with the next message a subscription receives; rejects (rather than hanging) after `ms` */
function collector() {
  const received: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    received,
    listener(message: string) {
      received.push(message);
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    /** waits until `count` messages have arrived in total */
    async until(count: number, ms = 2_000): Promise<string[]> {
      if (received.length < count) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => waiters.push({ count, resolve })),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} messages arrived`)), ms);
          }),
        ]).finally(() => clearTimeout(timer));
      }
      return [...received];
    },
  };
}

const key = (label: string) => `${label}:${randomUUID()}`;

for (const backend of backends) {
  describe(`kv store: ${backend.name}`, () => {
    let store: KvStore;

    before(() => {
      store = open(backend);
    });

    test('reports its kind and answers ping', async () => {
      assert.equal(store.kind, backend.name);
      await store.ping();
    });

    test('get / set / del', async () => {
      const k = key('basic');
      assert.equal(await store.get(k), null, 'a missing key reads as null');
      await store.set(k, 'one');
      assert.equal(await store.get(k), 'one');
      await store.set(k, 'two');
      assert.equal(await store.get(k), 'two', 'set overwrites');
      await store.set(`${k}:other`, 'x');
      await store.del(k);
      assert.equal(await store.get(k), null, 'del removes the key');
      assert.equal(await store.get(`${k}:other`), 'x', 'del removes only that key');
      await store.del(k); // deleting a missing key is not an error
      await store.del(`${k}:other`);
    });

    test('set with a ttl expires; set without one does not', async () => {
      const expiring = key('ttl');
      const lasting = key('no-ttl');
      const cleared = key('ttl-cleared');
      await store.set(expiring, 'soon gone', 50);
      await store.set(lasting, 'stays');
      await store.set(cleared, 'first', 50);
      await store.set(cleared, 'second'); // a set without ttl replaces the earlier expiry, as in Redis
      assert.equal(await store.get(expiring), 'soon gone', 'readable before its ttl');
      await sleep(120);
      assert.equal(await store.get(expiring), null, 'gone after its ttl');
      assert.equal(await store.get(lasting), 'stays');
      assert.equal(await store.get(cleared), 'second');
      await store.del(lasting);
      await store.del(cleared);
    });

    test('incrBy returns running totals', async () => {
      const k = key('counter');
      assert.equal(await store.incrBy(k, 1, 10_000), 1);
      assert.equal(await store.incrBy(k, 2, 10_000), 3);
      assert.equal(await store.incrBy(k, 5, 10_000), 8);
      assert.equal(await store.get(k), '8');
      const other = key('counter');
      assert.equal(await store.incrBy(other, 7, 10_000), 7, 'counters are independent');
      await store.del(k);
      assert.equal(await store.incrBy(k, 4, 10_000), 4, 'a deleted counter starts again');
      await store.del(k);
      await store.del(other);
    });

    test('incrBy keeps the expiry set when the counter was created', async () => {
      const k = key('window');
      assert.equal(await store.incrBy(k, 1, 100), 1);
      await sleep(70);
      // a store that refreshed the expiry here would keep the counter until ~170 ms
      assert.equal(await store.incrBy(k, 1, 100), 2);
      await sleep(70);
      assert.equal(await store.get(k), null, 'the counter expired 100 ms after it was created');
      assert.equal(await store.incrBy(k, 1, 100), 1, 'an expired counter starts again');
      await store.del(k);
    });

    test('publish / subscribe delivers to a subscriber', async () => {
      const channel = key('channel');
      const messages = collector();
      const unsubscribe = await store.subscribe(channel, messages.listener);
      try {
        await store.publish(channel, 'hello');
        assert.deepEqual(await messages.until(1), ['hello']);
        await store.publish(channel, 'again');
        assert.deepEqual(await messages.until(2), ['hello', 'again']);
      } finally {
        await unsubscribe();
      }
    });

    test('publish reaches every listener of the channel and no other channel', async () => {
      const channel = key('fanout');
      const elsewhere = key('elsewhere');
      const a = collector();
      const b = collector();
      const other = collector();
      const unsubscribers = [
        await store.subscribe(channel, a.listener),
        await store.subscribe(channel, b.listener),
        await store.subscribe(elsewhere, other.listener),
      ];
      try {
        await store.publish(channel, 'to both');
        await store.publish(elsewhere, 'marker');
        assert.deepEqual(await a.until(1), ['to both']);
        assert.deepEqual(await b.until(1), ['to both']);
        // the marker was published after the first message, so once it is in, a stray copy would be too
        assert.deepEqual(await other.until(1), ['marker']);
      } finally {
        for (const unsubscribe of unsubscribers) await unsubscribe();
      }
    });

    test('unsubscribe stops delivery', async () => {
      const channel = key('stop');
      const sentinelChannel = key('sentinel');
      const stopped = collector();
      const remaining = collector();
      const sentinel = collector();
      const unsubscribeStopped = await store.subscribe(channel, stopped.listener);
      const unsubscribeRemaining = await store.subscribe(channel, remaining.listener);
      const unsubscribeSentinel = await store.subscribe(sentinelChannel, sentinel.listener);
      try {
        await store.publish(channel, 'first');
        assert.deepEqual(await stopped.until(1), ['first']);
        assert.deepEqual(await remaining.until(1), ['first']);

        // one of two listeners leaves: the other keeps receiving, the one that left does not
        await unsubscribeStopped();
        await store.publish(channel, 'second');
        assert.deepEqual(await remaining.until(2), ['first', 'second']);
        assert.deepEqual(stopped.received, ['first'], 'no delivery after unsubscribe');

        // the last listener leaves (the channel itself is unsubscribed); messages are delivered in order,
        // so once the sentinel's later message has arrived, a message to the channel would have too
        await unsubscribeRemaining();
        await store.publish(channel, 'third');
        await store.publish(sentinelChannel, 'marker');
        assert.deepEqual(await sentinel.until(1), ['marker']);
        assert.deepEqual(remaining.received, ['first', 'second'], 'no delivery after the last unsubscribe');
        assert.deepEqual(stopped.received, ['first']);

        // subscribing again after a full unsubscribe works
        const again = collector();
        const unsubscribeAgain = await store.subscribe(channel, again.listener);
        await store.publish(channel, 'fourth');
        assert.deepEqual(await again.until(1), ['fourth']);
        await unsubscribeAgain();
      } finally {
        await unsubscribeSentinel();
      }
    });

    test('close ends the store', async () => {
      const own = open(backend);
      const k = key('closing');
      await own.set(k, 'v');
      const unsubscribe = await own.subscribe(key('closing-channel'), () => {});
      await unsubscribe();
      await close(own);
      if (backend.name === 'redis') {
        await assert.rejects(own.get(k), 'a closed Redis store no longer answers');
        assert.equal(await store.get(k), 'v', 'the data outlives the closed connection');
        await store.del(k);
      } else {
        assert.equal(await own.get(k), null, 'a closed memory store holds nothing');
      }
    });

    if (backend.name === 'memory') {
      test('the in-process store expires entries on an injected clock', async () => {
        let now = 1_000_000;
        const own = createMemoryStore({ now: () => now });
        opened.add(own);
        await own.set('a', 'v', 100);
        assert.equal(await own.incrBy('n', 1, 100), 1);
        assert.equal(await own.get('a'), 'v');
        now += 99;
        assert.equal(await own.get('a'), 'v', 'still there just before its ttl');
        assert.equal(await own.incrBy('n', 1, 100), 2);
        now += 2;
        assert.equal(await own.get('a'), null, 'expired once the clock passes its ttl');
        assert.equal(await own.get('n'), null, 'the counter expired with its first ttl');
        assert.equal(await own.incrBy('n', 5, 100), 5);
        await close(own);
      });
    }

    if (backend.name === 'redis') {
      test('the prefix isolates stores from each other', async () => {
        const one = open(backend, `test:${randomUUID()}:`);
        const two = open(backend, `test:${randomUUID()}:`);
        const k = key('isolated');
        await one.set(k, 'mine');
        assert.equal(await two.get(k), null, 'another prefix does not see the key');
        const channel = key('isolated-channel');
        const heardByTwo = collector();
        const heardByOne = collector();
        const unsubscribeTwo = await two.subscribe(channel, heardByTwo.listener);
        const unsubscribeOne = await one.subscribe(channel, heardByOne.listener);
        await one.publish(channel, 'for one');
        await two.publish(channel, 'for two');
        assert.deepEqual(await heardByOne.until(1), ['for one']);
        assert.deepEqual(await heardByTwo.until(1), ['for two']);
        await unsubscribeOne();
        await unsubscribeTwo();
        await one.del(k);
        await close(one);
        await close(two);
      });
    }
  });
}
