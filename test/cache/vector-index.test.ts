import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFlatIndex, normaliseInto } from '../../src/cache/semantic/vector-index.ts';

/** a unit vector at `cosine` to the first axis, in the plane of the first two axes */
function at(cosine: number, dimensions = 8): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[0] = cosine;
  vector[1] = Math.sqrt(1 - cosine * cosine);
  return vector;
}
const axis = (i: number, dimensions = 8) => {
  const vector = new Float32Array(dimensions);
  vector[i] = 1;
  return vector;
};

describe('normaliseInto', () => {
  test('scales to unit length; a zero or non-finite vector is refused', () => {
    const out = new Float32Array(2);
    assert.equal(normaliseInto(Float32Array.of(3, 4), out), true);
    assert.deepEqual([...out].map((x) => Math.round(x * 1e6) / 1e6), [0.6, 0.8]);
    assert.equal(normaliseInto(Float32Array.of(0, 0), out), false);
    assert.equal(normaliseInto(Float32Array.of(Number.NaN, 1), out), false);
  });
});

describe('flat index', () => {
  test('scores are cosine similarities, whatever the vectors\' lengths; best first; k and minScore honoured', () => {
    const index = createFlatIndex<string>({ dimensions: 8, capacity: 10 });
    index.add('same', axis(0), 'a');
    index.add('near', at(0.96).map((x) => x * 7), 'b');
    index.add('far', at(0.5), 'c');
    index.add('opposite', axis(0).map((x) => -x), 'd');
    const results = index.search(axis(0).map((x) => x * 3), 3, -1);
    assert.deepEqual(results.map((r) => r.id), ['same', 'near', 'far']);
    assert.ok(Math.abs((results[1]?.score ?? 0) - 0.96) < 1e-6);
    assert.equal(results[1]?.meta, 'b');
    assert.deepEqual(index.search(axis(0), 10, 0.9).map((r) => r.id), ['same', 'near']);
    assert.deepEqual(index.search(axis(0), 0, 0), []);
  });

  test('every dimension counts, including the tail after the unrolled loop', () => {
    for (const dimensions of [1, 3, 5, 7, 9]) {
      const index = createFlatIndex<null>({ dimensions, capacity: 2 });
      index.add('last', axis(dimensions - 1, dimensions), null);
      assert.equal(index.search(axis(dimensions - 1, dimensions), 1, 0.99)[0]?.id, 'last', `${dimensions} dimensions`);
    }
  });

  test('accept filters on metadata before k counts', () => {
    const index = createFlatIndex<{ model: string }>({ dimensions: 8, capacity: 10 });
    index.add('a', axis(0), { model: 'x' });
    index.add('b', at(0.99), { model: 'y' });
    assert.equal(index.search(axis(0), 1, 0.5, (meta) => meta.model === 'y')[0]?.id, 'b');
    assert.deepEqual(index.search(axis(0), 1, 0.5, (meta) => meta.model === 'z'), []);
  });

  test('adding an existing id replaces its vector and metadata; delete removes; size follows', () => {
    const index = createFlatIndex<number>({ dimensions: 8, capacity: 4 });
    index.add('a', axis(0), 1);
    index.add('a', axis(1), 2);
    assert.equal(index.size, 1);
    assert.deepEqual(index.search(axis(0), 1, 0.5), []);
    assert.equal(index.search(axis(1), 1, 0.5)[0]?.meta, 2);
    assert.equal(index.delete('a'), true);
    assert.equal(index.delete('a'), false);
    assert.equal(index.size, 0);
    assert.deepEqual(index.search(axis(1), 1, 0), []);
  });

  test('wrong dimensions and zero vectors are refused', () => {
    const index = createFlatIndex<null>({ dimensions: 8, capacity: 4 });
    assert.throws(() => index.add('a', new Float32Array(4), null), RangeError);
    assert.throws(() => index.add('a', new Float32Array(8), null), RangeError);
    assert.throws(() => index.search(new Float32Array(4), 1, 0), RangeError);
    assert.throws(() => createFlatIndex({ dimensions: 0, capacity: 1 }), RangeError);
  });

  test('FIFO: a full index evicts the oldest insert, even one just matched', () => {
    const index = createFlatIndex<null>({ dimensions: 8, capacity: 3, eviction: 'fifo', blockRows: 2 });
    for (let i = 0; i < 3; i++) index.add(`v${i}`, axis(i), null);
    index.search(axis(0), 1, 0.5);
    index.add('v3', axis(3), null);
    assert.equal(index.size, 3);
    assert.deepEqual(index.search(axis(0), 1, 0.5), []);
    assert.equal(index.search(axis(3), 1, 0.5)[0]?.id, 'v3');
  });

  test('LRU: a returned match counts as a use, so the least recently used is evicted', () => {
    const index = createFlatIndex<null>({ dimensions: 8, capacity: 3, eviction: 'lru', blockRows: 2 });
    for (let i = 0; i < 3; i++) index.add(`v${i}`, axis(i), null);
    index.search(axis(0), 1, 0.5);
    index.add('v3', axis(3), null);
    assert.equal(index.search(axis(0), 1, 0.5)[0]?.id, 'v0');
    assert.deepEqual(index.search(axis(1), 1, 0.5), [], 'v1 was the least recently used');
  });

  test('slots freed by delete are reused: memory stays bounded under churn', () => {
    const index = createFlatIndex<number>({ dimensions: 8, capacity: 5, blockRows: 2 });
    for (let i = 0; i < 1_000; i++) {
      index.add(`k${i}`, at(((i % 7) + 1) / 8), i);
      if (i % 3 === 0) index.delete(`k${i}`);
    }
    assert.ok(index.size <= 5);
    const results = index.search(axis(0), 5, -1);
    assert.equal(results.length, index.size);
    assert.ok(results.every((r) => r.meta >= 990));
  });
});
