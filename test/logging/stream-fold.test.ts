/**
 * Long streams in the request log (src/logging/stream-fold.ts): a stream of OpenAI chunks longer than what a request
 * keeps is folded a part at a time and logged whole, up to FOLDED_TEXT_LIMIT characters of text; another stream keeps
 * its first part and is marked as cut.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { responseBodyText } from '../../src/logging/log-bodies.ts';
import { ChunkFolder, MAX_FOLDED_PARTS, reassembleChunks } from '../../src/logging/reassemble-stream.ts';
import { answerFacts, newRequestRecord, noteChunk, noteStreamBytes, noteStreamTail, STREAM_KEEP_BYTES } from '../../src/logging/request-record.ts';
import { CHAT_DELTA, eventReader, SsePieceReader, sseObjects } from '../../src/logging/sse-events.ts';
import { FOLDED_TEXT_LIMIT } from '../../src/logging/stream-fold.ts';

type Answer = { choices: Array<{ index: number; message: { content: string; tool_calls?: Array<{ function: { arguments: string } }> }; finish_reason: string | null }>; usage?: unknown };

const chunk = (content: string, finish: string | null = null, index = 0) =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta: { content }, logprobs: null, finish_reason: finish }] });
const usage = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 } };

/** `count` words, some with an escape, a multi-byte character or an emoji, so reads cut inside them */
const words = (count: number, size = 1) => Array.from({ length: count }, (_, index) => `${['w', 'é', '🎉', '"q"', '\\n'][index % 5]}${index} `.repeat(size));

function sseOf(chunks: readonly unknown[]): Buffer {
  return Buffer.from(`${chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`).join('')}data: [DONE]\n\n`);
}

function relayed(bytes: Buffer, read: number, logBodies = true, manyChoices = false) {
  const record = newRequestRecord(0, 'chat');
  record.logBodies = logBodies;
  record.manyChoices = manyChoices;
  for (let at = 0; at < bytes.length; at += read) noteStreamBytes(record, bytes.subarray(at, at + read));
  return record;
}

test('a relayed stream of OpenAI chunks longer than what is kept is logged whole, whatever its reads', () => {
  for (const count of [100, 3_000, 12_000]) {
    // with an event now and then that is not a chunk (the first event alone tells what a stream is made of)
    const chunks = [...words(count).flatMap((word, index) => (index % 997 === 996 ? [{ ping: index }, chunk(word)] : [chunk(word)])), chunk('', 'stop'), usage];
    const bytes = sseOf(chunks);
    assert.equal(bytes.length > STREAM_KEEP_BYTES, count > 100);
    for (const read of [4_000, 7_777, 65_536]) {
      const record = relayed(bytes, read);
      // what the request holds stays bounded: the parts already folded were let go
      assert.ok(record.response?.kind === 'bytes' && record.response.size <= STREAM_KEEP_BYTES + read, `${count} events, reads of ${read}`);
      const logged = responseBodyText(record.response, 1 << 24)!;
      assert.equal(logged.truncated, false, `${count} events, reads of ${read}`);
      assert.deepEqual(JSON.parse(logged.text), reassembleChunks(chunks), `${count} events, reads of ${read}`);
      assert.deepEqual(logged.finishReasons, ['stop']);
    }
  }
});

test('a relayed stream whose text passes the folded limit: the text is cut there, its end still read, the body marked as cut', () => {
  const text = words(3_000, 20);
  const chunks = [...text.map((word) => chunk(word)), chunk('', 'length'), usage];
  const whole = text.join('');
  assert.ok(whole.length > FOLDED_TEXT_LIMIT);
  const logged = responseBodyText(relayed(sseOf(chunks), 16_384).response, 1 << 24)!;
  assert.equal(logged.truncated, true);
  const answer = JSON.parse(logged.text) as Answer;
  assert.equal(answer.choices[0]!.message.content, whole.slice(0, FOLDED_TEXT_LIMIT));
  assert.equal(answer.choices[0]!.finish_reason, 'length');
  assert.deepEqual(answer.usage, usage.usage);
  // and within the body cap, the cap cuts first as for any body
  const capped = responseBodyText(relayed(sseOf(chunks), 16_384).response, 64 * 1024)!;
  assert.equal(capped.truncated, true);
  assert.equal(Buffer.byteLength(capped.text) <= 64 * 1024, true);
});

test('a translated stream longer than what is kept is folded and logged whole; past the folded limit, cut', () => {
  for (const [count, size, cut] of [[200, 1, false], [9_000, 1, false], [5_000, 12, true]] as const) {
    const chunks = [...words(count, size).map((word) => chunk(word)), chunk('', 'stop'), usage];
    const record = newRequestRecord(0, 'chat');
    for (const value of chunks) noteChunk(record, value);
    assert.ok(record.response?.kind === 'chunks' && record.response.chunks.length <= 4_096);
    const logged = responseBodyText(record.response, 1 << 24)!;
    assert.equal(logged.truncated, cut, `${count} chunks of ${size} words`);
    const answer = JSON.parse(logged.text) as Answer;
    const expected = reassembleChunks(chunks) as Answer;
    if (!cut) assert.deepEqual(answer, expected);
    else assert.equal(answer.choices[0]!.message.content, expected.choices[0]!.message.content.slice(0, FOLDED_TEXT_LIMIT));
    assert.equal(answer.choices[0]!.finish_reason, 'stop');
  }
});

test('streams that are not OpenAI chunks keep their first part, marked as cut', () => {
  // relayed Messages events
  const events = words(6_000).map((word) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word } })}\n\n`);
  const messages = Buffer.from(`event: message_start\ndata: {"type":"message_start","message":{"model":"m"}}\n\n${events.join('')}`);
  assert.ok(messages.length > 2 * STREAM_KEEP_BYTES);
  const logged = responseBodyText(relayed(messages, 8_192).response, 1 << 24)!;
  assert.equal(logged.truncated, true);
  assert.ok(messages.toString('utf8').startsWith(logged.text) && Buffer.byteLength(logged.text) >= STREAM_KEEP_BYTES);
  // relayed bytes that are no event stream at all
  const other = Buffer.alloc(STREAM_KEEP_BYTES * 2, 'x');
  const raw = responseBodyText(relayed(other, 8_192).response, 1 << 24)!;
  assert.equal(raw.truncated, true);
  assert.equal(raw.text.length >= STREAM_KEEP_BYTES && raw.text.length < other.length, true);
  // translated chunks that are not OpenAI chunks: the first 4,096 are logged
  const record = newRequestRecord(0, 'chat');
  for (let index = 0; index < 5_000; index += 1) noteChunk(record, { type: 'event', index });
  const kept = responseBodyText(record.response, 1 << 24)!;
  assert.equal(kept.truncated, true);
  assert.equal((JSON.parse(kept.text) as unknown[]).length, 4_096);
});

test('a relayed stream of two choices without its body logged: the choice that ended long before the tail still has its finish reason', () => {
  // choice 0 ends at once; choice 1 goes on for ~600 KB (two folds), then ends
  const chunks = [chunk('a', null, 0), chunk('', 'stop', 0), ...words(8_000).map((word) => chunk(word, null, 1)), chunk('', 'length', 1)];
  const bytes = sseOf(chunks);
  assert.ok(bytes.length > 2 * STREAM_KEEP_BYTES);
  for (const logBodies of [false, true]) {
    const record = relayed(bytes, 8_192, logBodies, true);
    noteStreamTail(record, bytes.subarray(bytes.length - 16_384, bytes.length - 8_192), bytes.subarray(bytes.length - 8_192));
    answerFacts(record);
    assert.deepEqual(record.finishReasons, ['stop', 'length'], `bodies ${logBodies ? 'kept' : 'not kept'} for the row`);
    assert.equal(record.answerModel, 'm');
  }
});

test('the folder keeps text up to its limit across contents, reasoning and tool arguments, and says what it left out', () => {
  const folder = new ChunkFolder(10);
  folder.add(chunk('abcdef'));
  folder.add({ ...chunk(''), choices: [{ index: 0, delta: { reasoning_content: 'ghij' }, finish_reason: null }] });
  assert.equal(folder.overflowed, false);
  folder.add({ ...chunk(''), choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{"k":1}' } }] }, finish_reason: 'tool_calls' }] });
  assert.equal(folder.overflowed, true);
  const answer = folder.answer() as Answer & { choices: Array<{ message: { reasoning_content: string } }> };
  assert.equal(answer.choices[0]!.message.content, 'abcdef');
  assert.equal(answer.choices[0]!.message.reasoning_content, 'ghij');
  assert.equal(answer.choices[0]!.message.tool_calls![0]!.function.arguments, '');
  assert.equal(answer.choices[0]!.finish_reason, 'tool_calls');
  // parts given in any split fold into what the whole gives
  const chunks = sseObjects(sseOf(words(500).map((word) => chunk(word))).toString('utf8'));
  for (const split of [1, 7, 250]) {
    const parts = new ChunkFolder();
    for (let at = 0; at < chunks.length; at += split) parts.addAll(chunks.slice(at, at + split));
    assert.deepEqual(parts.answer(), reassembleChunks(chunks));
  }
});

test('choices and tool calls past the folder\'s count are left out and the answer marked as cut; tool names count as text', () => {
  const call = (index: number, name = 'f') => ({ ...chunk(''), choices: [{ index: 0, delta: { tool_calls: [{ index, id: `c${index}`, type: 'function', function: { name, arguments: '{}' } }] }, finish_reason: null }] });
  const folder = new ChunkFolder();
  for (let index = 0; index < MAX_FOLDED_PARTS - 1; index += 1) folder.add(call(index));
  assert.equal(folder.overflowed, false, 'one choice and the rest tool calls: at the count, nothing left out');
  folder.add(call(0, 'g'));
  assert.equal(folder.overflowed, false, 'a known tool call goes on');
  folder.add(chunk('x', null, 1));
  folder.add(call(MAX_FOLDED_PARTS));
  assert.equal(folder.overflowed, true);
  const answer = folder.answer() as Answer & { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> };
  assert.equal(answer.choices.length, 1, 'the second choice past the count');
  assert.equal(answer.choices[0]!.message.tool_calls.length, MAX_FOLDED_PARTS - 1);
  assert.equal(answer.choices[0]!.message.tool_calls[0]!.function.name, 'fg');
  const named = new ChunkFolder(3);
  named.add(call(0, 'long_name'));
  assert.equal(named.overflowed, true);
  assert.equal((named.answer() as typeof answer).choices[0]!.message.tool_calls[0]!.function.name, 'lon');
});

test('the SSE reader read in parts: events taken as they come, a line cut between parts kept whole, the first event alone judged', () => {
  const reader = new SsePieceReader({ completionChunks: true });
  assert.equal(reader.push(`data: ${JSON.stringify(chunk('a'))}\n\ndata: {"ping"`), true);
  assert.deepEqual(reader.take(), [chunk('a')]);
  // an event that is not a chunk, first after a take: the stream was judged by its first event, so it is read
  assert.equal(reader.push(`:1}\n\ndata: ${JSON.stringify(chunk('b'))}\n\n`), true);
  assert.deepEqual(reader.take(), [{ ping: 1 }, chunk('b')]);
  assert.equal(reader.push(`data: ${JSON.stringify(chunk('c'))}`), true);
  assert.equal(reader.end(), true);
  assert.deepEqual(reader.take(), [chunk('c')]);
  // a stream whose first event is not a chunk stops at once
  const other = new SsePieceReader({ completionChunks: true });
  assert.equal(other.push('data: {"type":"message_start"}\n\n'), false);
  assert.equal(other.end(), false);
});

test('a run of merged deltas is not held open without bound: the fold closes it at each part, the event reader at 256 pieces', () => {
  const deltas = words(600).map((word) => `data: ${JSON.stringify(chunk(word))}\n\n`);
  const reader = new SsePieceReader({ merged: true, completionChunks: true });
  reader.push(deltas.slice(0, 300).join(''));
  const first = reader.take();
  // the first event (the template) parsed, then the 299 after it as one merged event, closed now rather than held
  assert.equal(first.length, 2);
  assert.equal((reassembleChunks(first) as Answer).choices[0]!.message.content, words(300).join(''));
  reader.push(deltas.slice(300).join(''));
  assert.equal((reassembleChunks(reader.take()) as Answer).choices[0]!.message.content, words(600).slice(300).join(''));
  // the event reader (a relayed Messages stream's, taken at every event) closes a run once it has 256 pieces
  const events = eventReader(CHAT_DELTA, { merged: true });
  const taken: unknown[] = [];
  for (const delta of deltas) {
    events.read(delta.slice('data: '.length));
    taken.push(...events.take());
  }
  assert.equal(taken.length, 3, 'the template, then two runs of 256 pieces closed as they filled');
  const rest = events.events();
  assert.equal(rest.length, 1, 'the last 87 pieces, closed at the end');
  assert.equal((reassembleChunks([...taken, ...rest]) as Answer).choices[0]!.message.content, words(600).join(''));
});
