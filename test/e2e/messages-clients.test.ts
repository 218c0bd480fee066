/**
 * POST /v1/messages with the clients people already use, unchanged but for their base URL, against an OpenAI-format
 * backend reached through the canonical chat form: the Vercel AI SDK (`ai` with `@ai-sdk/anthropic`) and LangChain
 * (`ChatAnthropic`). Each sends its key as `x-api-key`: here the gateway key. Text, a stream, and a tool call
 * across two turns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { startFakeToolsUpstream, type FakeToolsUpstream } from '../fakes/openai-tools-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeToolsUpstream;

before(async () => {
  [upstream, gateway] = await Promise.all([startFakeToolsUpstream(), startTestGateway()]);
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const backend = () => ({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl });
const weatherParameters = { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } }, required: ['location'] } as const;

describe('Vercel AI SDK (@ai-sdk/anthropic)', () => {
  const model = () => createAnthropic({ baseURL: `${gateway.baseURL}`, apiKey: gateway.adminKey, headers: backend() })('claude-sonnet-4-5');

  test('text', async () => {
    const result = await generateText({ model: model(), prompt: 'Hi', maxOutputTokens: 50 });
    assert.equal(result.text, 'Hello from chat');
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.usage.outputTokens, 7);
    const seen = upstream.requests.at(-1)!;
    assert.equal(seen.url, '/v1/chat/completions');
    assert.equal(seen.headers['x-api-key'], undefined, 'the gateway key is not sent on');
  });

  test('stream', async () => {
    const result = streamText({ model: model(), prompt: 'Hi', maxOutputTokens: 50 });
    let text = '';
    for await (const part of result.textStream) text += part;
    assert.equal(text, 'Hello from chat');
    assert.equal(await result.finishReason, 'stop');
  });

  test('a tool call across two turns (the SDK runs the tool and sends its result back)', async () => {
    const calls: string[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ location: string; unit?: string }>(weatherParameters),
          execute: async ({ location }) => {
            calls.push(location);
            return `sunny in ${location}`;
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    assert.deepEqual(calls, ['Paris', 'Tokyo'], 'both parallel calls ran');
    assert.equal(result.steps.length, 2);
    assert.equal(result.text, 'Weather: sunny in Paris | sunny in Tokyo');
    const sent = upstream.requests.at(-1)!.json.messages as Array<{ role: string }>;
    assert.deepEqual(sent.map((message) => message.role), ['user', 'assistant', 'tool', 'tool']);
  });
});

describe('LangChain (ChatAnthropic)', () => {
  const chat = () => new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: gateway.adminKey, anthropicApiUrl: gateway.origin, maxRetries: 0, maxTokens: 100, clientOptions: { defaultHeaders: backend() } });

  test('text', async () => {
    const answer = await chat().invoke('Hi');
    assert.equal(answer.content, 'Hello from chat');
  });

  test('stream', async () => {
    let text = '';
    for await (const chunk of await chat().stream('Hi')) text += typeof chunk.content === 'string' ? chunk.content : '';
    assert.equal(text, 'Hello from chat');
  });

  test('a tool call across two turns', async () => {
    const model = chat().bindTools([{ name: 'get_weather', description: 'The weather in a city', input_schema: weatherParameters }]);
    const question = new HumanMessage('Weather in Paris?');
    const first = await model.invoke([question]);
    assert.deepEqual(first.tool_calls?.map((call) => call.args), [{ location: 'Paris', unit: 'celsius' }, { location: 'Tokyo', unit: 'celsius' }]);
    const results = first.tool_calls!.map((call) => new ToolMessage({ tool_call_id: call.id!, content: `cloudy in ${String(call.args.location)}` }));
    const second = await model.invoke([question, first as AIMessage, ...results]);
    assert.equal(second.content, 'Weather: cloudy in Paris | cloudy in Tokyo');
  });
});
