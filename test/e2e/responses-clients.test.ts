/**
 * The Responses API over chat with the clients people use, unchanged: the Vercel AI SDK (`@ai-sdk/openai`'s
 * responses model: text, a stream, a tool call executed and answered in a second step, structured output) and
 * LangChain (`ChatOpenAI` with useResponsesApi: text and a tool call across two turns) against a fake chat
 * upstream; and the official openai client against the fake Anthropic API (a non-OpenAI family): a tool call with
 * thinking, whose signature goes back to Anthropic on the next turn through previous_response_id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { startChatToolsUpstream, type ChatToolsUpstream } from '../fakes/chat-tools-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: ChatToolsUpstream;
let anthropic: FakeAnthropic;

before(async () => {
  upstream = await startChatToolsUpstream();
  anthropic = await startFakeAnthropic();
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await upstream.close();
  await anthropic.close();
});

const chatHeaders = () => ({ 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'deepseek', 'x-gateway-custom-host': upstream.baseUrl });
const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;

describe('Vercel AI SDK (@ai-sdk/openai responses)', () => {
  /** the bodies the SDK sent to the gateway */
  const sent: Array<Record<string, unknown>> = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
    return fetch(input, init);
  };
  const model = () => createOpenAI({ baseURL: gateway.baseURL, apiKey: 'sk-provider-token', headers: chatHeaders(), fetch: recordingFetch }).responses('chat-model');

  test('text, with usage', async () => {
    const result = await generateText({ model: model(), prompt: 'Hi' });
    assert.equal(result.text, 'Hello world');
    assert.equal(result.usage.inputTokens, 11);
    assert.equal(result.usage.outputTokens, 7);
  });

  test('a stream', async () => {
    const result = streamText({ model: model(), prompt: 'Hi' });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    assert.equal(text, 'Hello world');
    assert.equal((await result.usage).totalTokens, 18);
  });

  test('a tool call executed, its result answered in a second step', async () => {
    const seen: string[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ city: string }>(weatherParameters),
          execute: async ({ city }) => {
            seen.push(city);
            return `sunny in ${city}`;
          },
        }),
      },
      stopWhen: stepCountIs(2),
    });
    assert.deepEqual(seen, ['Paris']);
    assert.equal(result.text, 'The weather: sunny in Paris');
    const messages = upstream.requests.at(-1)!.messages as Array<{ role: string; tool_calls?: Array<{ id: string }> }>;
    assert.deepEqual(messages.map((message) => message.role), ['user', 'assistant', 'tool']);
    assert.equal(messages[1]!.tool_calls?.[0]?.id, 'call_weather_1');
  });

  test('a conversation continued from the SDK\'s messages: its item_reference resolved from the store', async () => {
    const first = await generateText({ model: model(), prompt: 'Hi' });
    await generateText({ model: model(), messages: [{ role: 'user', content: 'Hi' }, ...first.response.messages, { role: 'user', content: 'Again' }] });
    const input = sent.at(-1)!.input as Array<{ type?: string; id?: string }>;
    const reference = input.find((item) => item.type === 'item_reference');
    assert.ok(reference, 'the SDK referred to its earlier answer by id');
    assert.match(reference.id ?? '', /^msg_/);
    assert.deepEqual(upstream.requests.at(-1)!.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: 'Hello world' },
      { role: 'user', content: [{ type: 'text', text: 'Again' }] },
    ]);
  });

  test('structured output', async () => {
    const result = await generateText({
      model: model(),
      prompt: 'Paris weather as JSON',
      output: Output.object({ schema: jsonSchema<{ city: string; temperature: number }>({ type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'number' } }, required: ['city', 'temperature'], additionalProperties: false }) }),
    });
    assert.deepEqual(result.output, { city: 'Paris', temperature: 21 });
    assert.equal((upstream.requests.at(-1)!.response_format as { type: string }).type, 'json_schema');
  });
});

describe('LangChain (ChatOpenAI with useResponsesApi)', () => {
  const chat = () => new ChatOpenAI({ model: 'chat-model', apiKey: 'sk-provider-token', useResponsesApi: true, maxRetries: 0, configuration: { baseURL: gateway.baseURL, defaultHeaders: chatHeaders() } });

  test('text', async () => {
    const answer = await chat().invoke('Hi');
    assert.equal(answer.text, 'Hello world');
    assert.equal(answer.usage_metadata?.total_tokens, 18);
  });

  test('a tool call, then its result in a second turn', async () => {
    const model = chat().bindTools([{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weatherParameters } }]);
    const question = new HumanMessage('Weather in Paris?');
    const first = await model.invoke([question]);
    assert.equal(first.tool_calls?.length, 1);
    const call = first.tool_calls![0]!;
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(call.args, { city: 'Paris' });
    const second = await model.invoke([question, first as AIMessage, new ToolMessage({ tool_call_id: call.id!, content: 'cloudy' })]);
    assert.equal(second.text, 'The weather: cloudy');
  });
});

describe('openai client over the Anthropic API', () => {
  const client = () => new OpenAI({
    apiKey: 'sk-ant-test',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.baseUrl },
  });
  const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false }];

  test('parallel tool calls with thinking; the signature goes back with previous_response_id', async () => {
    const first = await client().responses.create({ model: 'claude-test', input: 'Weather in Paris and Tokyo?', tools, max_output_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } } as never);
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    assert.ok(reasoning && reasoning.type === 'reasoning');
    assert.equal(reasoning.encrypted_content, 'sig_fake_1');
    const calls = first.output.filter((item) => item.type === 'function_call');
    assert.deepEqual(calls.map((item) => item.type === 'function_call' && item.call_id), ['toolu_paris', 'toolu_tokyo']);

    const second = await client().responses.create({
      model: 'claude-test',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: 'toolu_paris', output: 'sunny' },
        { type: 'function_call_output', call_id: 'toolu_tokyo', output: 'rain' },
      ],
      tools,
      max_output_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    } as never);
    assert.match(second.output_text, /Hello world/);
    const sent = anthropic.requests.at(-1)!.json!;
    const assistant = (sent.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>)[1]!;
    assert.equal(assistant.role, 'assistant');
    assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: 'Let me think about the weather.', signature: 'sig_fake_1' });
    assert.deepEqual(assistant.content.slice(1).map((block) => block.id), ['toolu_paris', 'toolu_tokyo']);
  });

  test('a stream with tool calls: arguments assembled exactly', async () => {
    const stream = client().responses.stream({ model: 'claude-test', input: 'Weather?', tools, max_output_tokens: 512 });
    const final = await stream.finalResponse();
    const calls = final.output.filter((item) => item.type === 'function_call');
    assert.deepEqual(calls.map((item) => item.type === 'function_call' && JSON.parse(item.arguments)), [{ location: 'Paris' }, { location: 'Tokyo' }]);
  });
});
