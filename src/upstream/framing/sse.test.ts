import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSseFramer } from './sse.ts';

function frameAll(parts: string[]): Array<{ event: string | undefined; data: string }> {
  const framer = createSseFramer();
  const out = parts.flatMap((part) => framer.push(Buffer.from(part)));
  return [...out, ...framer.end()];
}

test('events split across chunks, CRLF and CR line ends, comments and named events', () => {
  assert.deepEqual(frameAll(['data: {"a":', '1}\n\n: keep-alive\n\nevent: message_start\r', '\ndata: {"b":2}\r\n\r\n', 'data: x\r\rdata: y']), [
    { event: undefined, data: '{"a":1}' },
    { event: 'message_start', data: '{"b":2}' },
    { event: undefined, data: 'x' },
    { event: undefined, data: 'y' },
  ]);
});

test('multi-line data joins with newlines; an event without data is dropped', () => {
  assert.deepEqual(frameAll(['event: ping\n\ndata: one\ndata: two\n\n']), [{ event: undefined, data: 'one\ntwo' }]);
});

test('multi-byte characters split between chunks survive', () => {
  const bytes = Buffer.from('data: héllo ✓\n\n');
  const framer = createSseFramer();
  const out = [...framer.push(bytes.subarray(0, 9)), ...framer.push(bytes.subarray(9)), ...framer.end()];
  assert.deepEqual(out, [{ event: undefined, data: 'héllo ✓' }]);
});
