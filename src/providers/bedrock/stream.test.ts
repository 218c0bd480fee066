import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { StreamDecoder, StreamEvent } from '../contract.ts';
import { bedrockCall, bedrockTarget, loadFixture } from './__fixtures__/support.ts';
import { createBedrockAdapter } from './index.ts';

const adapter = createBedrockAdapter({ clock: { now: () => 1_700_000_000_000, newId: () => 'fixed-id' } });

const fixture = loadFixture<{
  call: Record<string, unknown>;
  events: Array<{ event: string; data: unknown }>;
  expected: Array<Record<string, unknown>>;
}>('stream-tools');

function decoderFor(body: Record<string, unknown>, strict = true): StreamDecoder {
  const decoder = adapter.streamDecoder?.(bedrockCall('chat', body, { strictReferenceCompliance: strict }), bedrockTarget());
  assert.ok(decoder, 'a streaming chat call gets a decoder');
  return decoder;
}

function run(decoder: StreamDecoder, events: StreamEvent[]): unknown[] {
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

const framed = (events: Array<{ event: string; data: unknown }>): StreamEvent[] =>
  events.map(({ event, data }) => ({ event, data: JSON.stringify(data) }));

test('text, two parallel tool calls with streamed arguments, finish reason, usage last (fixture)', () => {
  const chunks = run(decoderFor(fixture.call), framed(fixture.events));
  const common = { id: 'chatcmpl-fixed-id', object: 'chat.completion.chunk', created: 1_700_000_000, model: fixture.call.model };
  assert.deepEqual(chunks, fixture.expected.map((chunk) => ({ ...common, ...chunk })));
});

test('without include_usage no usage chunk is sent; a non-streaming call gets no decoder', () => {
  const { stream_options: _options, ...body } = fixture.call;
  const chunks = run(decoderFor(body), framed(fixture.events)) as Array<{ usage?: unknown }>;
  assert.ok(chunks.every((chunk) => chunk.usage === undefined));
  assert.equal(adapter.streamDecoder?.(bedrockCall('chat', { ...body, stream: false }), bedrockTarget()), undefined);
});

test('reasoning deltas become content_blocks when strict compliance is off', () => {
  const decoder = decoderFor(fixture.call, false);
  const chunks = run(
    decoder,
    framed([
      { event: 'messageStart', data: { role: 'assistant' } },
      { event: 'contentBlockDelta', data: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Let me think' } } } },
      { event: 'contentBlockDelta', data: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig-1' } } } },
      { event: 'contentBlockDelta', data: { contentBlockIndex: 1, delta: { reasoningContent: { redactedContent: 'cmVk' } } } },
      { event: 'messageStop', data: { stopReason: 'end_turn' } },
    ]),
  ) as Array<{ choices: Array<{ delta: Record<string, unknown> }> }>;
  assert.deepEqual(
    chunks.slice(1, 4).map((chunk) => chunk.choices[0]?.delta.content_blocks),
    [
      [{ index: 0, delta: { type: 'thinking', thinking: 'Let me think' } }],
      [{ index: 0, delta: { type: 'thinking', signature: 'sig-1' } }],
      [{ index: 1, delta: { type: 'redacted_thinking', data: 'cmVk' } }],
    ],
  );
});

test('stream exceptions are GatewayErrors with the provider message and a fitting status', () => {
  const cases: Array<[string, string, number, string]> = [
    ['exception:throttlingException', '{"message":"Too many tokens, please wait"}', 429, 'rate_limit_error'],
    ['exception:validationException', '{"message":"Bad input"}', 400, 'invalid_request_error'],
    ['exception:modelStreamErrorException', '{"message":"model broke","originalStatusCode":500}', 424, 'upstream_error'],
    ['error:InternalFailure', 'internal failure', 502, 'upstream_error'],
  ];
  for (const [event, data, status, type] of cases) {
    const decoder = decoderFor(fixture.call);
    decoder.push({ event: 'messageStart', data: '{"role":"assistant"}' });
    assert.throws(
      () => decoder.push({ event, data }),
      (error: unknown) =>
        error instanceof GatewayError && error.status === status && error.type === type && error.message === (data.startsWith('{') ? JSON.parse(data).message : data),
      event,
    );
  }
});

test('a stream that ends before messageStop, or sends tool input for an unknown block, is broken', () => {
  const decoder = decoderFor(fixture.call);
  decoder.push({ event: 'messageStart', data: '{"role":"assistant"}' });
  assert.throws(() => decoder.end(), (error: unknown) => error instanceof GatewayError && error.status === 502);
  assert.throws(() => decoderFor(fixture.call).push({ event: 'contentBlockDelta', data: '{"contentBlockIndex":3,"delta":{"toolUse":{"input":"{"}}}' }));
});
