import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createScanKernel } from '../../src/cache/semantic/simd-scan.ts';

/** deterministic values in [-0.5, 0.5) */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648 - 0.5;
  };
}

describe('SIMD scan kernel', () => {
  for (const dimensions of [1, 7, 8, 9, 256, 1536]) {
    test(`scores equal plain dot products (${dimensions} dimensions, padding included)`, () => {
      const rows = 37;
      const kernel = createScanKernel(dimensions, rows);
      kernel.ensureRows(rows);
      const next = sequence(dimensions);
      const values: number[][] = [];
      const query: number[] = [];
      for (let d = 0; d < dimensions; d++) query.push(next());
      kernel.floats.set(query, kernel.queryOffset);
      for (let r = 0; r < rows; r++) {
        const row = Array.from({ length: dimensions }, next);
        values.push(row);
        kernel.floats.set(row, kernel.rowOffset(r));
      }
      kernel.scan(rows);
      for (let r = 0; r < rows; r++) {
        const expected = (values[r] ?? []).reduce((sum, value, d) => sum + Math.fround(value) * Math.fround(query[d] ?? 0), 0);
        const actual = kernel.floats[kernel.scoresOffset + r] ?? Number.NaN;
        assert.ok(Math.abs(actual - expected) < 1e-4, `row ${r}: ${actual} vs ${expected}`);
      }
    });
  }

  test('growing the memory keeps every row and gives a fresh view', () => {
    const kernel = createScanKernel(1536, 200);
    kernel.ensureRows(1);
    kernel.floats[kernel.queryOffset] = 1;
    kernel.floats[kernel.rowOffset(0)] = 0.5;
    const before = kernel.floats;
    kernel.ensureRows(200);
    assert.notEqual(kernel.floats, before);
    kernel.floats[kernel.rowOffset(199)] = 0.25;
    kernel.scan(200);
    assert.equal(kernel.floats[kernel.scoresOffset], 0.5);
    assert.equal(kernel.floats[kernel.scoresOffset + 199], 0.25);
    assert.equal(kernel.floats[kernel.scoresOffset + 100], 0);
  });

  test('a capacity beyond the 4 GiB of wasm32 memory is refused up front', () => {
    assert.throws(() => createScanKernel(1536, 1_000_000), RangeError);
  });
});
