/**
 * The shared memory the embedded database's prepared statements are written into (message-buffer.ts), and the
 * Bind message written from chunks (extended-protocol.ts): the same bytes as from one buffer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SharedMessageBuffer } from '../../src/storage/pglite-worker/message-buffer.ts';
import { bindExecuteMessage, joinedParameter } from '../../src/storage/extended-protocol.ts';

test('one shared memory is reused from message to message, grown with room to spare when a message outgrows it', () => {
  const messages = new SharedMessageBuffer(1024 * 1024);
  const first = messages.take(100_000);
  assert.ok(first.buffer instanceof SharedArrayBuffer);
  assert.equal(first.byteLength, 100_000);
  assert.equal(messages.keptBytes, 131_072, 'a quarter more, in 64 KiB steps');
  const second = messages.take(120_000);
  assert.equal(second.buffer, first.buffer, 'reused');
  const third = messages.take(200_000);
  assert.notEqual(third.buffer, first.buffer);
  assert.equal(messages.keptBytes, 262_144);
  assert.equal(messages.take(50).buffer, third.buffer, 'a smaller message after a larger one: the same memory');
});

test('a message larger than what is kept gets memory of its own; the kept memory stays as it was', () => {
  const messages = new SharedMessageBuffer(1024 * 1024);
  const kept = messages.take(900_000);
  assert.equal(messages.keptBytes, 1024 * 1024, 'growth stops at the limit');
  const large = messages.take(3_000_000);
  assert.notEqual(large.buffer, kept.buffer);
  assert.equal(large.byteLength, 3_000_000);
  assert.equal(messages.keptBytes, 1024 * 1024);
  assert.equal(messages.take(1000).buffer, kept.buffer);
});

test('a Bind message from chunks holds the same bytes as from one buffer; strings are UTF-8, null is SQL NULL', () => {
  const chunks = [Buffer.from([0, 0, 0, 1]), Buffer.from('héllo'), Buffer.alloc(0), Buffer.from([255])];
  const fromChunks = bindExecuteMessage('stmt', [chunks, 'ünï', null]);
  const fromOne = bindExecuteMessage('stmt', [joinedParameter(chunks), 'ünï', null]);
  assert.deepEqual(Buffer.from(fromChunks), Buffer.from(fromOne));
  const expected = Buffer.concat([
    Buffer.from('B'),
    Buffer.from([0, 0, 0, 4 + 1 + 5 + 2 + 2 + 2 + (4 + 11) + (4 + 5) + 4 + 2]),
    Buffer.from('\0stmt\0'),
    Buffer.from([0, 1, 0, 1, 0, 3]),
    Buffer.from([0, 0, 0, 11, 0, 0, 0, 1]),
    Buffer.from('héllo'),
    Buffer.from([255]),
    Buffer.from([0, 0, 0, 5]),
    Buffer.from('ünï'),
    Buffer.from([255, 255, 255, 255]),
    Buffer.from([0, 0]),
  ]);
  assert.deepEqual(Buffer.from(fromChunks).subarray(0, expected.length), expected);
  assert.equal(Buffer.from(fromChunks).subarray(expected.length, expected.length + 1).toString(), 'E', 'Execute follows');
});

test('the message is written into the memory it is given, of exactly its length', () => {
  const messages = new SharedMessageBuffer();
  let asked = 0;
  const message = bindExecuteMessage('s', [[Buffer.from('ab'), Buffer.from('cd')]], (bytes) => {
    asked = bytes;
    return messages.take(bytes);
  });
  assert.ok(message.buffer instanceof SharedArrayBuffer);
  assert.equal(message.byteLength, asked);
  assert.deepEqual(Buffer.from(message), Buffer.from(bindExecuteMessage('s', [Buffer.from('abcd')])));
});
