/**
 * The slabs the request log's records are copied into (src/storage/record-slabs.ts): a slab is reused only once all
 * of its records are released and it is no longer being filled, so a record still queued keeps its bytes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { RecordSlabs } from '../../src/storage/record-slabs.ts';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

/** a record of `length` bytes, each the given value */
function source(value: number, length: number): Buffer {
  return Buffer.alloc(length, value);
}

function copy(slabs: RecordSlabs, value: number, length = 100): Buffer {
  const bytes = source(value, length + 8);
  return slabs.copy(bytes, 4, 4 + length);
}

describe('record slabs', () => {
  test('records share a slab, 8-byte aligned, each with its own bytes', () => {
    const slabs = new RecordSlabs(1024);
    const a = copy(slabs, 1, 100);
    const b = copy(slabs, 2, 30);
    assert.equal(a.buffer, b.buffer);
    assert.equal(b.byteOffset - a.byteOffset, 104);
    assert.deepEqual([a.length, b.length], [100, 30]);
    assert.ok(a.every((byte) => byte === 1) && b.every((byte) => byte === 2));
  });

  test('a slab is reused once it is full and every record in it is released, not before', () => {
    const slabs = new RecordSlabs(1024); // four records of 256 bytes fill one
    const first = [copy(slabs, 1, 256), copy(slabs, 2, 256), copy(slabs, 3, 256), copy(slabs, 4, 256)];
    assert.ok(first.every((record) => record.buffer === first[0]!.buffer));
    slabs.release(first.slice(0, 3)); // one record of the first slab is still queued
    const more = Array.from({ length: 8 }, (_, index) => copy(slabs, 10 + index, 256));
    assert.ok(more.every((record) => record.buffer !== first[0]!.buffer), 'a slab with a live record is never written again');
    assert.ok(first[3]!.every((byte) => byte === 4), 'the live record kept its bytes');
    slabs.release([first[3]!]);
    assert.deepEqual(slabs.counts, { inUse: 2, free: 1 });
    const reused = copy(slabs, 20, 256); // the third slab is full: the next record needs a slab
    assert.equal(reused.buffer, first[0]!.buffer, 'the released slab is taken before a new one is allocated');
    assert.deepEqual(slabs.counts, { inUse: 3, free: 0 });
    assert.ok(more.every((record, index) => record.every((byte) => byte === 10 + index)), 'records of the other slabs untouched');
  });

  test('the slab being filled is not handed out again while it is being filled, even with no live record', () => {
    const slabs = new RecordSlabs(1024);
    const a = copy(slabs, 1, 200);
    slabs.release([a]);
    const b = copy(slabs, 2, 200);
    assert.equal(b.buffer, a.buffer);
    assert.equal(b.byteOffset, 200 + 0, 'the next record goes after the released one: the slab is not rewound');
    assert.ok(a.every((byte) => byte === 1));
    assert.deepEqual(slabs.counts, { inUse: 1, free: 0 });
  });

  test('a record released twice counts once: its slab is not reused while another of its records is live', () => {
    const slabs = new RecordSlabs(1024);
    const first = Array.from({ length: 4 }, (_, index) => copy(slabs, index + 1, 256));
    copy(slabs, 9, 256); // retires the first slab
    slabs.release([first[0]!]);
    slabs.release([first[0]!]);
    slabs.release([first[1]!, first[2]!]);
    assert.equal(slabs.counts.free, 0, 'the fourth record is still live');
    const next = Array.from({ length: 4 }, () => copy(slabs, 7, 256)); // fills the second slab, then needs another
    assert.notEqual(next[3]!.buffer, first[3]!.buffer);
    assert.ok(first[3]!.every((byte) => byte === 4));
    slabs.release([first[3]!]);
    assert.equal(slabs.counts.free, 1);
  });

  test('a large record gets a buffer of its own, which release leaves alone', () => {
    const slabs = new RecordSlabs(1024);
    const large = copy(slabs, 7, 300);
    assert.equal(large.byteOffset, 0);
    assert.equal(large.buffer.byteLength, 300);
    slabs.release([large]);
    assert.deepEqual(slabs.counts, { inUse: 0, free: 0 });
  });

  test('at most maxFree slabs are kept after many are released (an outage held many rows)', () => {
    const slabs = new RecordSlabs(1024, 2);
    const records = Array.from({ length: 40 }, (_, index) => copy(slabs, index, 256)); // ten slabs
    copy(slabs, 99, 256); // an eleventh, being filled
    slabs.release(records);
    assert.deepEqual(slabs.counts, { inUse: 1, free: 2 });
  });
});

test('slabs whose records are dropped without being released are still collected (they are held weakly)', async () => {
  const slabs = new RecordSlabs(1024);
  let records: Buffer[] | undefined = Array.from({ length: 8 }, (_, index) => copy(slabs, index, 256)); // two slabs
  const first = new WeakRef(records[0]!.buffer);
  copy(slabs, 9, 256); // retires the second slab: a third is being filled
  records = undefined; // dropped, never released
  // deref() keeps its target alive until the end of the job that called it: collect in a job of its own
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(first.deref(), undefined, 'a slab no record refers to any more is not kept alive by the slabs');
});
