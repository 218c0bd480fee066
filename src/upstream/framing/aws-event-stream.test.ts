import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { createAwsEventStreamFramer } from './aws-event-stream.ts';
import type { FramedEvent } from './sse.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function event(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'event' },
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

const stream = Buffer.concat([
  event('messageStart', { role: 'assistant', p: 'abc' }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo ✓' } }),
  codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'exception' },
      ':exception-type': { type: 'string', value: 'throttlingException' },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8('{"message":"Too many requests"}'),
  }),
  codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'error' },
      ':error-code': { type: 'string', value: 'InternalFailure' },
      ':error-message': { type: 'string', value: 'boom' },
    },
    body: new Uint8Array(0),
  }),
]);

const expected: FramedEvent[] = [
  { event: 'messageStart', data: '{"role":"assistant","p":"abc"}' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"héllo ✓"}}' },
  { event: 'exception:throttlingException', data: '{"message":"Too many requests"}' },
  { event: 'error:InternalFailure', data: 'boom' },
];

test('whole stream in one chunk', () => {
  const framer = createAwsEventStreamFramer();
  assert.deepEqual([...framer.push(stream), ...framer.end()], expected);
});

test('split at every byte boundary into two chunks', () => {
  for (let cut = 0; cut <= stream.length; cut += 1) {
    const framer = createAwsEventStreamFramer();
    const out = [...framer.push(stream.subarray(0, cut)), ...framer.push(stream.subarray(cut)), ...framer.end()];
    assert.deepEqual(out, expected, `cut at ${cut}`);
  }
});

test('one byte at a time', () => {
  const framer = createAwsEventStreamFramer();
  const out: FramedEvent[] = [];
  for (let i = 0; i < stream.length; i += 1) out.push(...framer.push(stream.subarray(i, i + 1)));
  assert.deepEqual([...out, ...framer.end()], expected);
});

test('a stream cut inside a message throws at the end; a corrupted message fails its checksum', () => {
  const truncated = createAwsEventStreamFramer();
  truncated.push(stream.subarray(0, stream.length - 3));
  assert.throws(() => truncated.end(), /ended inside a message/);

  const corrupted = Buffer.from(stream);
  corrupted[20] = corrupted[20]! ^ 0xff;
  assert.throws(() => createAwsEventStreamFramer().push(corrupted), /checksum/);
});
