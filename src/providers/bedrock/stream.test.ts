/**
 * The ConverseStream decoder beyond its fixture pairs (stream-tools.json, stream-errors.json): which calls get a
 * decoder, usage only when asked for, and tool input for a block that was never started.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIXTURE_CLOCK, fixtureTarget, framedEvents, inferenceCall } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import type { StreamDecoder } from '../contract.ts';
import { createBedrockAdapter } from './index.ts';

const adapter = createBedrockAdapter({ clock: FIXTURE_CLOCK });
const fixture = fixtureCase('bedrock/stream-tools.json', 'stream: text and parallel tool calls, usage last');
const request = fixture.request as Record<string, unknown>;
const target = fixtureTarget(fixture, adapter);

function decoderFor(body: Record<string, unknown>): StreamDecoder {
  const decoder = adapter.streamDecoder?.(inferenceCall('chat', body), target);
  assert.ok(decoder, 'a streaming chat call gets a decoder');
  return decoder;
}

test('without include_usage no usage chunk is sent; a non-streaming call gets no decoder', () => {
  const { stream_options: _options, ...body } = request;
  const decoder = decoderFor(body);
  const chunks = [...framedEvents(fixture.upstreamResponse?.events ?? [], 'aws-event-stream').flatMap((event) => decoder.push(event)), ...decoder.end()] as Array<{ usage?: unknown }>;
  assert.ok(chunks.length > 0);
  assert.ok(chunks.every((chunk) => chunk.usage === undefined));
  assert.equal(adapter.streamDecoder?.(inferenceCall('chat', { ...body, stream: false }), target), undefined);
});

test('tool input for a block that was never started is an error', () => {
  assert.throws(() => decoderFor(request).push({ event: 'contentBlockDelta', data: '{"contentBlockIndex":3,"delta":{"toolUse":{"input":"{"}}}' }));
});
