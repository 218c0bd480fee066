/** The replicated semantic-cache entry: an exact round trip, and refusal of anything else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEntry, encodeEntry, MAX_REPLICATED_DIMENSIONS, type ReplicatedEntry } from '../../src/cache/semantic/replication.ts';

const entry: ReplicatedEntry = {
  node: 'node-a',
  space: 'space-1',
  key: 'k'.repeat(64),
  namespace: 'team-a',
  model: 'gpt-4o-mini',
  variant: 'v1',
  expiresAt: 1_700_000_060_000,
  embedding: Float32Array.from([0.1, -2.5, 3e-8, 1e30, 0]),
};

test('an entry survives the trip bit for bit, vector included', () => {
  const decoded = decodeEntry(encodeEntry(entry));
  assert.ok(typeof decoded !== 'string', String(decoded));
  assert.deepEqual(decoded, entry);
});

test('a vector that is a view into a larger buffer encodes only its own floats', () => {
  const backing = Float32Array.from([9, 1, 2, 9]);
  const decoded = decodeEntry(encodeEntry({ ...entry, embedding: backing.subarray(1, 3) }));
  assert.ok(typeof decoded !== 'string');
  assert.deepEqual([...decoded.embedding], [1, 2]);
});

test('the vector travels as base64 of its bytes, not as a number list', () => {
  const message = JSON.parse(encodeEntry(entry)) as Record<string, unknown>;
  assert.equal(message.vector, Buffer.from(entry.embedding.buffer).toString('base64'));
  assert.equal(message.v, 1);
});

test('anything else is refused with a reason', () => {
  const valid = JSON.parse(encodeEntry(entry)) as Record<string, unknown>;
  const cases: Array<[string, RegExp]> = [
    ['not json', /not JSON/],
    ['[1]', /not an object/],
    [JSON.stringify({ ...valid, v: 2 }), /unknown version 2/],
    [JSON.stringify({ ...valid, key: 5 }), /key is not a string/],
    [JSON.stringify({ ...valid, namespace: undefined }), /namespace is not a string/],
    [JSON.stringify({ ...valid, expiresAt: 'soon' }), /expiresAt/],
    [JSON.stringify({ ...valid, vector: 42 }), /vector is not a string/],
    [JSON.stringify({ ...valid, vector: '' }), /bad length/],
    [JSON.stringify({ ...valid, vector: Buffer.alloc(6).toString('base64') }), /bad length/],
    [JSON.stringify({ ...valid, vector: Buffer.alloc((MAX_REPLICATED_DIMENSIONS + 1) * 4).toString('base64') }), /bad length/],
  ];
  for (const [message, reason] of cases) {
    const decoded = decodeEntry(message);
    assert.equal(typeof decoded, 'string', message.slice(0, 80));
    assert.match(decoded as string, reason);
  }
});
