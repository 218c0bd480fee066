import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assembleMessage, MessageAssembler, messageEvents } from './message-events.ts';

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'thinking', thinking: 'Hmm.', signature: 'EqQB+/sig==' },
    { type: 'redacted_thinking', data: 'opaque==' },
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
    { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Ex' }] },
    { type: 'text', text: 'Sunny.', citations: [{ type: 'web_search_result_location', url: 'https://example.com', cited_text: 'sun' }] },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 20 },
};

test('a Message replayed as events assembles back to the same Message', () => {
  const events = messageEvents(MESSAGE);
  assert.deepEqual(events.map((event) => String(event.type)).filter((type) => !type.startsWith('content_block')), ['message_start', 'ping', 'message_delta', 'message_stop']);
  assert.deepEqual(assembleMessage(events), MESSAGE);
});

test('the replay streams what Anthropic streams: empty starts, then deltas', () => {
  const events = messageEvents(MESSAGE);
  assert.deepEqual(events[2], { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
  assert.deepEqual(events.find((event) => event.type === 'content_block_delta' && (event.delta as { type: string }).type === 'input_json_delta' && event.index === 5), {
    type: 'content_block_delta', index: 5, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris","days":[1,2]}' },
  });
  assert.deepEqual((events[0] as { message: { usage: unknown; content: unknown } }).message.content, []);
});

test('a stream that is not whole assembles to nothing', () => {
  const events = messageEvents(MESSAGE);
  assert.equal(assembleMessage(events.slice(0, -1)), undefined, 'no message_stop');
  assert.equal(assembleMessage([...events.slice(0, 3), { type: 'error', error: { type: 'overloaded_error' } }]), undefined);
  assert.equal(assembleMessage([events[0], { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }, events.at(-1)]), undefined, 'a delta without its block');
});

test('assembled as events come, in any split; past its limit of text and thinking, the rest left out and said so', () => {
  const events = messageEvents(MESSAGE);
  for (const split of [1, 3, events.length]) {
    const assembler = new MessageAssembler();
    for (let at = 0; at < events.length; at += split) for (const event of events.slice(at, at + split)) assembler.add(event);
    assert.deepEqual(assembler.message(), MESSAGE, `parts of ${split}`);
  }
  const assembled = (message: typeof MESSAGE, limit: number) => {
    const assembler = new MessageAssembler(limit);
    for (const event of messageEvents(message)) assembler.add(event);
    return assembler;
  };
  // counted: each block as it starts (its JSON), then 'Hmm.' (thinking) 4, the signature 11 (whole), the web search's
  // input 19 (whole), the citation (its JSON, whole), 'Sunny.' 6, the tool's input 29 (whole)
  const starts = (message: typeof MESSAGE) => messageEvents(message)
    .filter((event) => event.type === 'content_block_start')
    .reduce((sum, event) => sum + JSON.stringify(event.content_block).length, 0);
  const citation = JSON.stringify(MESSAGE.content[4]!.citations![0]).length;
  const all = starts(MESSAGE) + 4 + 11 + 19 + citation + 6 + 29;
  // without the last tool block, a limit 4 short of the text keeps 'Su' of it
  const first5 = { ...MESSAGE, content: MESSAGE.content.slice(0, 5), stop_reason: 'end_turn' };
  const limited = assembled(first5, starts(first5) + 4 + 11 + 19 + citation + 2);
  assert.equal(limited.overflowed, true);
  const message = limited.message() as { content: Array<Record<string, unknown>> };
  assert.equal(message.content[0]!.thinking, 'Hmm.');
  assert.equal(message.content[0]!.signature, 'EqQB+/sig==', 'a signature is kept whole');
  assert.deepEqual(message.content[2]!.input, { query: 'weather' });
  assert.deepEqual(message.content[4]!.citations, MESSAGE.content[4]!.citations);
  assert.equal(message.content[4]!.text, 'Su');
  // a tool's input past the limit would be no input: the Message is not assembled (the log keeps the events)
  assert.equal(assembled(MESSAGE, all - 1).message(), undefined);
  assert.equal(assembled(MESSAGE, all).overflowed, false);
  assert.deepEqual(assembled(MESSAGE, all).message(), MESSAGE);
  // nor is it when a signature, a citation or a block's start would be cut
  const upTo = (limit: number, first: number) => assembled({ ...MESSAGE, content: MESSAGE.content.slice(0, first), stop_reason: 'end_turn' }, limit);
  const thinkingStart = JSON.stringify({ type: 'thinking', thinking: '', signature: '' }).length;
  assert.equal(upTo(thinkingStart + 4 + 10, 1).message(), undefined, 'the signature one short');
  assert.deepEqual((upTo(thinkingStart + 4 + 11, 1).message() as { content: unknown[] }).content, [MESSAGE.content[0]]);
  assert.equal(upTo(starts(first5) + 4 + 11 + 19 + citation - 1, 5).message(), undefined, 'the citation one short');
  assert.equal(upTo(thinkingStart + 4 + 11 + JSON.stringify(MESSAGE.content[1]).length - 1, 2).message(), undefined, 'a block one short');
  // a broken event ends the assembly, whatever comes after it
  const broken = new MessageAssembler();
  for (const event of [...events.slice(0, 3), { type: 'error', error: { type: 'overloaded_error' } }, ...events.slice(3)]) broken.add(event);
  assert.equal(broken.message(), undefined);
});

test('a long list of citations is assembled in order; blocks past the assembler\'s count leave the Message unassembled', () => {
  const cited = { type: 'text', text: 'x', citations: Array.from({ length: 3000 }, (_, i) => ({ type: 'char_location', cited_text: `c${i}`, document_index: 0, start_char_index: i, end_char_index: i + 1 })) };
  const message = { ...MESSAGE, content: [cited], stop_reason: 'end_turn' };
  const events = messageEvents(message);
  const assembler = new MessageAssembler(1 << 20);
  for (const event of events) assembler.add(event);
  assert.deepEqual(assembler.message(), message);
  assert.deepEqual((events.find((event) => event.type === 'content_block_start') as { content_block: { citations: unknown[] } }).content_block.citations, [], 'the start event is not written to');
  const many = { ...MESSAGE, content: Array.from({ length: 4097 }, (_, i) => ({ type: 'text', text: `t${i}` })), stop_reason: 'end_turn' };
  assert.equal(assembleMessage(messageEvents(many)), undefined);
  assert.equal((assembleMessage(messageEvents({ ...many, content: many.content.slice(0, 4096) })) as { content: unknown[] }).content.length, 4096);
});
