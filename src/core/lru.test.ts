import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LRUCache } from 'lru-cache';
import { boundedLru } from './lru.ts';

test('a bounded LRU evicts the least recently used entry past its bound', () => {
  const cache = boundedLru<string, number>(3);
  for (const [index, key] of ['a', 'b', 'c'].entries()) cache.set(key, index);
  assert.equal(cache.get('a'), 0); // a is now the most recently used
  cache.set('d', 3);
  assert.equal(cache.size, 3);
  assert.equal(cache.has('b'), false);
  assert.deepEqual([...cache.keys()].sort(), ['a', 'c', 'd']);
  for (let index = 0; index < 1000; index += 1) cache.set(`k${index}`, index);
  assert.equal(cache.size, 3);
});

test('a bounded LRU keeps TTLs, per entry too', () => {
  let clock = 1_000; // lru-cache reads a start time of 0 as "no start"
  const cache = boundedLru<string, string>(10, { ttl: 100, ttlResolution: 0, perf: { now: () => clock } });
  cache.set('short', 'x', { ttl: 10 });
  cache.set('long', 'y');
  clock = 1_050;
  assert.equal(cache.get('short'), undefined);
  assert.equal(cache.get('long'), 'y');
  clock = 1_151;
  assert.equal(cache.get('long'), undefined);
});

test('a bounded LRU allocates for what it holds, not for its bound', () => {
  const heapAfter = (make: () => unknown): number => {
    const keep: unknown[] = [];
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    for (let index = 0; index < 20; index += 1) keep.push(make());
    const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    assert.equal(keep.length, 20);
    return (after - before) / 20;
  };
  const preallocated = heapAfter(() => new LRUCache<string, string>({ max: 100_000 }));
  const bounded = heapAfter(() => boundedLru<string, string>(100_000));
  assert.ok(preallocated > 2_000_000, `lru-cache with max preallocates (${preallocated} bytes a cache)`);
  assert.ok(bounded < 20_000, `a bounded LRU holds ${bounded} bytes empty`);
});
