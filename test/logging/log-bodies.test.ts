/** Bodies for the request log: streams reassembled (fixture pairs), the byte cap, finish reasons, headers masked. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { capText, responseBodyText } from '../../src/logging/log-bodies.ts';
import { hashedValue, requestHeadersForLog, sensitiveNames } from '../../src/logging/log-headers.ts';
import { finishReasonsInJson, finishReasonsInSse, finishReasonsOf, finishReasonsOfChunks, responseAtStreamEnd } from '../../src/logging/finish-reasons.ts';
import { reassembleChunks } from '../../src/logging/reassemble-stream.ts';
import { sseObjects } from '../../src/logging/sse-events.ts';
import { answerFacts, newRequestRecord, noteCachedAnswer, noteChunk, noteStreamBytes, noteStreamTail, type RequestRecord } from '../../src/logging/request-record.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as { chunks: unknown[]; answer: unknown };

for (const name of ['stream-tool-calls', 'stream-two-choices-text']) {
  test(`a stream folds into one answer: ${name}`, () => {
    const { chunks, answer } = fixture(name);
    assert.deepEqual(reassembleChunks(chunks), answer);
    // the same stream as a relayed SSE text
    const sse = `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
    assert.deepEqual(reassembleChunks(sseObjects(sse)), answer);
    const bytes = Buffer.from(sse);
    const logged = responseBodyText({ kind: 'bytes', buffers: [bytes.subarray(0, 50), bytes.subarray(50)], size: bytes.length }, 1 << 20);
    assert.deepEqual(JSON.parse(logged!.text), answer);
    // read with the answer, so the row need not read the stream's tail again for it
    assert.equal(logged!.model, (answer as { model: string }).model);
    assert.ok(logged!.model);
  });
}

test('a relayed stream that is not made of completion chunks (a Messages stream) is logged as its text, whole', () => {
  const text = 'event: message_start\ndata: {"type":"message_start","message":{"model":"m"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"café 🎉"}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
  const bytes = Buffer.from(text);
  const at = bytes.indexOf(Buffer.from('🎉')) + 2; // inside the emoji
  const logged = responseBodyText({ kind: 'bytes', buffers: [bytes.subarray(0, 5), bytes.subarray(5, at), bytes.subarray(at)], size: bytes.length }, 1 << 20);
  assert.equal(logged?.text, text);
  assert.equal(logged?.truncated, false);
});

const delta = (content: string, finish: string | null = null) =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: finish }] });

test('a relayed Messages stream (not completion chunks) is not parsed event by event to be thrown away', (t) => {
  const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index} `);
  // its first event tells
  const messages = `event: message_start\ndata: {"type":"message_start","message":{"model":"m"}}\n\n${words(500).map((word) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word } })}\n\n`).join('')}`;
  const parse = t.mock.method(JSON, 'parse');
  const logged = responseBodyText({ kind: 'bytes', buffers: [Buffer.from(messages)], size: Buffer.byteLength(messages) }, 1 << 20);
  const parsedEvents = parse.mock.calls.filter((call) => String(call.arguments[0]).startsWith('{"type"')).length;
  parse.mock.restore();
  assert.equal(logged?.text, messages);
  assert.equal(parsedEvents, 1);
});

test('a stream kept as its text is cut at the cap across the chunks it came in, a character cut dropped', () => {
  const text = `event: message_start\ndata: {"type":"message_start"}\n\n${'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"café 🎉"}}\n\n'.repeat(50)}`;
  const bytes = Buffer.from(text);
  const pieces = (size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
  for (const size of [1, 7, 100, 1000, bytes.length]) {
    for (const cap of [100, 1000, 1001, 1002, 2000, bytes.length - 1, bytes.length]) {
      const logged = responseBodyText({ kind: 'bytes', buffers: pieces(size), size: bytes.length }, cap)!;
      assert.deepEqual({ text: logged.text, truncated: logged.truncated }, capText(text, cap), `chunks of ${size}, cap ${cap}`);
    }
  }
  // the cap falling where a chunk ends, with more after it, is a cut all the same
  const logged = responseBodyText({ kind: 'bytes', buffers: [bytes.subarray(0, 100), bytes.subarray(100)], size: bytes.length }, 100)!;
  assert.equal(logged.truncated, true);
  assert.equal(logged.text, bytes.subarray(0, 100).toString('utf8'));
});

test('finish reasons in choice order', () => {
  assert.deepEqual(finishReasonsOf(fixture('stream-two-choices-text').answer), ['stop', 'length']);
  assert.equal(finishReasonsOf({ data: [] }), undefined);
});

for (const name of ['stream-tool-calls', 'stream-two-choices-text']) {
  test(`a stream's finish reasons as its chunks pass, whether or not its body is kept: ${name}`, () => {
    const { chunks, answer } = fixture(name);
    const expected = finishReasonsOf(answer);
    assert.ok(expected);
    assert.deepEqual(finishReasonsOfChunks(chunks), expected);
    for (const logBodies of [true, false]) {
      const record = newRequestRecord(0, 'chat');
      record.logBodies = logBodies;
      for (const chunk of chunks) noteChunk(record, chunk);
      assert.deepEqual(record.finishReasons, expected);
    }
    // a relayed stream: only its tail is read, split across the last two reads
    const sse = `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
    assert.deepEqual(finishReasonsInSse(sse), expected);
    const bytes = Buffer.from(sse);
    const record = newRequestRecord(0, 'chat');
    record.logBodies = false;
    noteStreamTail(record, bytes.subarray(0, bytes.length - 30), bytes.subarray(bytes.length - 30));
    assert.equal(record.finishReasons, undefined, 'not read while the answer is being sent');
    answerFacts(record);
    assert.deepEqual(record.finishReasons, expected);
    assert.equal(record.answerModel, (chunks[0] as { model: string }).model);
  });
}

test('a relayed stream of many choices: the finish reasons of choices that ended before its tail, bodies kept or not', () => {
  const event = (index: number, delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index, delta, finish_reason: finish }] })}\n\n`;
  const parts = [event(0, { content: 'Hi' }, null), event(0, {}, 'stop'), ...Array.from({ length: 60 }, () => event(1, { content: 'more '.repeat(20) }, null)), event(1, {}, 'length'), 'data: [DONE]\n\n'];
  const buffers = parts.map((part) => Buffer.from(part));
  const relay = (record: RequestRecord) => {
    for (const buffer of buffers) noteStreamBytes(record, buffer);
    noteStreamTail(record, buffers.at(-2), buffers.at(-1));
    answerFacts(record);
    return record.finishReasons;
  };
  for (const logBodies of [false, true]) {
    const record = newRequestRecord(0, 'chat');
    record.logBodies = logBodies; // true: the bytes are kept for the body, which `x-gateway-debug: false` then leaves out
    record.manyChoices = true;
    assert.deepEqual(relay(record), ['stop', 'length'], `logBodies ${logBodies}`);
  }
  // one choice asked for: nothing kept without a body, only the tail read (choice 0 finished ~8 KB before it)
  const single = newRequestRecord(0, 'chat');
  single.logBodies = false;
  assert.deepEqual(relay(single), ['length']);
  assert.equal(single.streamBytes, undefined);
});

test('finish reasons: none while every chunk says null; a chunk cut at the tail\'s start is skipped', () => {
  assert.equal(finishReasonsInSse('data: {"choices":[{"index":0,"delta":{},"finish_reason":null}]}\n\ndata: [DONE]\n\n'), undefined);
  assert.deepEqual(finishReasonsInSse('ason":"length"}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason": "stop"}]}\n\n'), ['stop']);
  assert.equal(finishReasonsOfChunks([{ choices: [{ index: 0, finish_reason: 7 }] }, 'text', null]), undefined);
});

test('finish reasons of an answer kept as JSON text (a cached one): a completion\'s, a Message\'s stop_reason', () => {
  assert.deepEqual(finishReasonsInJson(JSON.stringify(fixture('stream-two-choices-text').answer)), ['stop', 'length']);
  assert.deepEqual(finishReasonsInJson('{"type":"message","role":"assistant","content":[],"stop_reason": "end_turn"}'), ['end_turn']);
  // a finish_reason inside a string is escaped, so not one; null and broken JSON give none
  assert.equal(finishReasonsInJson(JSON.stringify({ choices: [{ index: 0, message: { content: '"finish_reason":"stop"' }, finish_reason: null }] })), undefined);
  assert.equal(finishReasonsInJson('{"choices":[{"finish_reason":"stop"'), undefined);
  // a cached answer's, read when the row is built
  const record = newRequestRecord(0, 'chat');
  noteCachedAnswer(record, JSON.stringify(fixture('stream-two-choices-text').answer));
  assert.equal(record.finishReasons, undefined);
  answerFacts(record);
  assert.deepEqual(record.finishReasons, ['stop', 'length']);
});

test('finish reasons of a Response: its status in chat\'s terms, as the gateway maps chat\'s onto a Response', () => {
  const response = (fields: Record<string, unknown>) => ({ object: 'response', id: 'resp_1', output: [], ...fields });
  const message = { type: 'message', role: 'assistant', status: 'completed', content: [] };
  const call = { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' };
  assert.deepEqual(finishReasonsOf(response({ status: 'completed', output: [message] })), ['stop']);
  assert.deepEqual(finishReasonsOf(response({ status: 'completed', output: [message, call] })), ['tool_calls']);
  assert.deepEqual(finishReasonsOf(response({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } })), ['content_filter']);
  assert.deepEqual(finishReasonsOf(response({ status: 'incomplete', incomplete_details: null })), ['incomplete']);
  assert.deepEqual(finishReasonsOf(response({ status: 'failed' })), ['error']);
  assert.equal(finishReasonsOf(response({ status: 'in_progress' })), undefined);
  assert.deepEqual(finishReasonsInJson(JSON.stringify(response({ status: 'completed', output: [call] }))), ['tool_calls']);
});

test('a Responses stream\'s last event: its Response, from the tail or, when the tail cut its line, the last two chunks', () => {
  const done = { type: 'response.completed', sequence_number: 9, response: { object: 'response', status: 'completed', model: 'gpt-x', output: [{ type: 'message', content: [{ type: 'output_text', text: 'x'.repeat(6000) }] }], usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } } };
  const events = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"x"}\n\nevent: response.completed\ndata: ${JSON.stringify(done)}\n\n`;
  assert.equal(responseAtStreamEnd(events)?.model, 'gpt-x');
  // the line cut at the text's start is not parsed; an event still in progress is not the end
  assert.equal(responseAtStreamEnd(events.slice(events.length - 4096)), undefined);
  assert.equal(responseAtStreamEnd('data: {"type":"response.created","response":{"status":"in_progress"}}\n\n'), undefined);
  const bytes = Buffer.from(events);
  const record = newRequestRecord(0, 'responses.create');
  noteStreamTail(record, bytes.subarray(0, 100), bytes.subarray(100));
  assert.equal(record.laterFacts?.text.length, 4096, 'the tail kept for usage is cut');
  assert.deepEqual(record.usage, { prompt: 3, completion: 4, total: 7 }, 'the usage is read from the tail at once');
  answerFacts(record);
  assert.deepEqual(record.finishReasons, ['stop']);
  assert.equal(record.answerModel, 'gpt-x');
  // the last event's name cut between the two chunks, at every place (the chunks are searched as bytes first)
  const last = Buffer.from(`event: response.completed\ndata: ${JSON.stringify(done)}\n\n`);
  const name = last.indexOf('"response.completed"');
  for (let cut = name - 1; cut <= name + 12; cut += 1) {
    const split = newRequestRecord(0, 'responses.create');
    noteStreamTail(split, last.subarray(0, cut), last.subarray(cut));
    answerFacts(split);
    assert.deepEqual(split.finishReasons, ['stop'], `cut at ${cut - name} from the name`);
  }
  // a stream that names no Response's end has none
  const other = Buffer.from(`data: ${JSON.stringify({ type: 'message_delta', text: 'y'.repeat(6000) })}\n\n`);
  const passed = newRequestRecord(0, 'passthrough');
  noteStreamTail(passed, other.subarray(0, 3000), other.subarray(3000));
  answerFacts(passed);
  assert.equal(passed.finishReasons, undefined);
});

test('the cap counts bytes, keeps whole characters and marks the cut', () => {
  assert.deepEqual(capText('abc', 3), { text: 'abc', truncated: false });
  assert.deepEqual(capText('abcd', 3), { text: 'abc', truncated: true });
  // é is two bytes: a cut in its middle drops it
  assert.deepEqual(capText('aé', 2), { text: 'a', truncated: true });
  const long = responseBodyText({ kind: 'object', value: { text: 'x'.repeat(100) } }, 20);
  assert.equal(long!.truncated, true);
  assert.equal(Buffer.byteLength(long!.text), 20);
});

test('headers: credentials masked, named ones hashed case-insensitively, x-gateway-* apart, inline config keys masked', () => {
  const headers = {
    authorization: 'Bearer sk-live',
    'x-api-key': 'sk-ant',
    'x-gateway-api-key': 'gw-key',
    'x-gateway-aws-secret-access-key': 'aws-value-9',
    'x-gateway-virtual-key': 'vk-slug',
    'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-inline' }),
    'x-gateway-sensitive-headers': 'X-Team-Token',
    'x-team-token': 'team-value',
    'x-org-thing': 'org-value',
    accept: 'application/json',
  };
  const logged = requestHeadersForLog(headers, sensitiveNames(['x-org-thing'], headers));
  assert.equal(logged.request.authorization, '********');
  assert.equal(logged.request['x-api-key'], '********');
  assert.equal(logged.request['x-team-token'], hashedValue('team-value'));
  assert.equal(logged.request['x-org-thing'], hashedValue('org-value'));
  assert.equal(logged.request.accept, 'application/json');
  assert.equal(logged.gateway['x-gateway-api-key'], '********');
  assert.equal(logged.gateway['x-gateway-aws-secret-access-key'], '********');
  assert.equal(logged.gateway['x-gateway-virtual-key'], 'vk-slug');
  assert.deepEqual(JSON.parse(logged.gateway['x-gateway-config']!), { provider: 'openai', api_key: '********' });
  assert.doesNotMatch(JSON.stringify(logged), /sk-live|sk-ant|gw-key|aws-value-9|sk-inline|team-value|org-value/);
});

test('an answer kept as an object from a stream folded past its limit (a long Message) is marked as cut', () => {
  const message = { type: 'message', content: [{ type: 'text', text: 'Su' }], stop_reason: 'end_turn' };
  assert.equal(responseBodyText({ kind: 'object', value: message, dropped: true }, 1 << 20)?.truncated, true);
  assert.equal(responseBodyText({ kind: 'object', value: message }, 1 << 20)?.truncated, false);
});
