/**
 * The pure transforms of the Responses API over chat, as fixture pairs (fixtures/*.json, each case reviewed by
 * hand): a Responses request -> the chat request; a chat answer -> the Response; chat chunks -> the Responses
 * events. Then the refusals (400 naming the field), the conversation kept for previous_response_id, and paging.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import { continueConversation, identifiedItems, pageOfItems } from '../../src/responses/conversation.ts';
import { chatToResponse } from '../../src/responses/from-chat.ts';
import { createResponsesStreamEncoder } from '../../src/responses/stream-encoder.ts';
import { toChatRequest } from '../../src/responses/to-chat.ts';
import type { ResponseObject, ResponsesRequest } from '../../src/responses/types.ts';
import { validateResponsesRequest } from '../../src/responses/validate.ts';

const fixtures = <T>(name: string): T[] => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T[];

/** resp_1, msg_2, ...: one counter per case, as the fixtures were written */
function counterIds() {
  let next = 0;
  return { newId: (prefix: string) => `${prefix}_${++next}`, now: () => 1_700_000_100 };
}

function refusedWith(run: () => unknown, param: string): void {
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === param, `a 400 naming ${param}`);
}

describe('Responses request -> chat request', () => {
  for (const pair of fixtures<{ name: string; request: ResponsesRequest; chat: unknown }>('to-chat.json')) {
    test(pair.name, () => assert.deepEqual(toChatRequest(validateResponsesRequest(pair.request)), pair.chat));
  }

  test('what a chat API cannot carry is refused, naming the field', () => {
    refusedWith(() => toChatRequest({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f' }, { type: 'file_search' }] }), 'tools[1].type');
    refusedWith(() => toChatRequest({ model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }), 'input[0].type');
    refusedWith(() => toChatRequest({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }), 'input[0].content[0].type');
    refusedWith(() => toChatRequest({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] }), 'input[0].content[0].file_id');
    refusedWith(() => toChatRequest({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'file_search' } }), 'tool_choice.type');
    refusedWith(() => toChatRequest({ model: 'm', input: 'x', previous_response_id: 'resp_elsewhere' }), 'previous_response_id');
  });
});

describe('Responses request validation', () => {
  const cases: Array<[string, unknown, string]> = [
    ['no model', { input: 'x' }, 'model'],
    ['no input', { model: 'm' }, 'input'],
    ['an input that is a number', { model: 'm', input: 3 }, 'input'],
    ['a message without a role', { model: 'm', input: [{ type: 'message', content: 'x' }] }, 'input[0].role'],
    ['an unknown role', { model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    ['a content part without text', { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
    ['a function call without arguments', { model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }, 'input[0].arguments'],
    ['a function tool without a name', { model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name'],
    ['a tool_choice word not known', { model: 'm', input: 'x', tool_choice: 'sometimes' }, 'tool_choice'],
    ['a json_schema format without a name', { model: 'm', input: 'x', text: { format: { type: 'json_schema', schema: {} } } }, 'text.format.name'],
    ['a temperature above 2', { model: 'm', input: 'x', temperature: 2.5 }, 'temperature'],
    ['max_output_tokens not an integer', { model: 'm', input: 'x', max_output_tokens: 1.5 }, 'max_output_tokens'],
    ['a reasoning effort not known', { model: 'm', input: 'x', reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    ['metadata with a number', { model: 'm', input: 'x', metadata: { a: 1 } }, 'metadata.a'],
    ['stream not a boolean', { model: 'm', input: 'x', stream: 'yes' }, 'stream'],
  ];
  for (const [name, body, param] of cases) test(name, () => refusedWith(() => validateResponsesRequest(body), param));

  test('built-in tools and unknown item types pass validation: a native provider takes them', () => {
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }], tools: [{ type: 'web_search_preview' }] };
    assert.equal(validateResponsesRequest(body), body);
  });
});

describe('chat answer -> Response', () => {
  for (const pair of fixtures<{ name: string; request: ResponsesRequest; chat: never; response: unknown }>('from-chat.json')) {
    test(pair.name, () => assert.deepEqual(chatToResponse(pair.chat, pair.request, counterIds()), pair.response));
  }
});

describe('chat chunks -> Responses events', () => {
  for (const pair of fixtures<{ name: string; request: ResponsesRequest; chunks: unknown[]; events: unknown[] }>('stream.json')) {
    test(pair.name, () => {
      const encoder = createResponsesStreamEncoder(pair.request, counterIds());
      const events = [...encoder.start(), ...pair.chunks.flatMap((chunk) => encoder.push(chunk)), ...encoder.finish(), ...encoder.complete()];
      assert.deepEqual(events, pair.events);
      // the stored response is the one the last event carries
      assert.deepEqual(encoder.response(), (pair.events.at(-1) as { response: unknown }).response);
    });
  }

  test('an error event takes the next sequence number', () => {
    const encoder = createResponsesStreamEncoder({ model: 'm', input: 'x' }, counterIds());
    const started = encoder.start();
    assert.deepEqual(encoder.fail({ code: 'stream_interrupted', message: 'broke', param: null }), [{ type: 'error', sequence_number: started.length, code: 'stream_interrupted', message: 'broke', param: null }]);
  });
});

describe('the conversation kept for previous_response_id', () => {
  const ids = counterIds();
  const first: ResponsesRequest = { model: 'm', instructions: 'Be brief.', input: 'Weather?' };
  const answer = chatToResponse(
    { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'w', arguments: '{}' } }] }, logprobs: null, finish_reason: 'tool_calls' }] },
    first,
    ids,
  );
  const stored = { response: answer, input_items: identifiedItems(first, ids) };

  test('the stored input and output come before the new input; instructions do not carry over', () => {
    const next = continueConversation({ model: 'm', previous_response_id: answer.id, input: [{ type: 'function_call_output', call_id: 'call_a', output: 'sunny' }] }, stored);
    assert.equal(next.previous_response_id, undefined);
    assert.equal(next.instructions, undefined);
    assert.deepEqual(toChatRequest(next).messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
    ]);
  });

  test('a reasoning item goes back as a thinking block with its signature', () => {
    const withReasoning: ResponseObject = { ...answer, output: [{ id: 'rs_x', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Hmm.' }], encrypted_content: 'sig_9' }, ...answer.output] };
    const next = continueConversation({ model: 'm', input: [{ type: 'function_call_output', call_id: 'call_a', output: 'sunny' }] }, { ...stored, response: withReasoning });
    const assistant = toChatRequest(next).messages[1];
    assert.deepEqual(assistant, { role: 'assistant', content: null, content_blocks: [{ type: 'thinking', thinking: 'Hmm.', signature: 'sig_9' }], tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'w', arguments: '{}' } }] });
  });
});

describe('input items pages', () => {
  const items = ['a', 'b', 'c', 'd'].map((id) => ({ id, type: 'message' }));
  test('newest first, a limit, has_more and the cursor ids', () => {
    assert.deepEqual(pageOfItems(items, { limit: 2, order: 'desc' }), { object: 'list', data: [items[3], items[2]], first_id: 'd', last_id: 'c', has_more: true });
    assert.deepEqual(pageOfItems(items, { limit: 2, order: 'desc', after: 'c' }), { object: 'list', data: [items[1], items[0]], first_id: 'b', last_id: 'a', has_more: false });
    assert.deepEqual(pageOfItems(items, { limit: 10, order: 'asc', before: 'c' }).data, [items[0], items[1]]);
  });
  test('a cursor that is not an item of the response is a 400 naming it', () => refusedWith(() => pageOfItems(items, { limit: 2, order: 'asc', after: 'zzz' }), 'after'));
});
