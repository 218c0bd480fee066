/**
 * A fake OpenAI chat upstream on 127.0.0.1 that answers with tool calls, JSON and streamed alike, and records every
 * request. It stands for any backend reached through the canonical chat form. Behaviour, by the request:
 *   tools given and the last message not a tool result: tool calls (`get_weather`), one per city of CITIES, or only
 *     the first city when the model name contains `single`; a stream sends "Let me check." first, then each call's
 *     id and name, then its arguments in three pieces;
 *   the last message a tool result: "Weather: <every tool result, joined with ' | '>";
 *   response_format json_schema: the text `{"answer":"42"}`;
 *   model `length`: finish_reason length; otherwise "Hello from chat" (stop);
 *   model `break` (streamed): one chunk of text, then the connection is destroyed;
 *   model `words-<n>` (streamed): a long answer, <n> content chunks "w0 ", "w1 ", ...
 * Usage: prompt 30 tokens, 10 of them cached, completion 7; a stream sends it in a last chunk when include_usage.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolsRecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export interface FakeToolsUpstream {
  baseUrl: string;
  requests: ToolsRecordedRequest[];
  close(): Promise<void>;
}

export const CITIES = ['Paris', 'Tokyo'] as const;
const USAGE = { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } };

type Json = Record<string, unknown>;

interface Plan {
  text: string | null;
  calls: Array<{ id: string; name: string; arguments: string }>;
  finish: string;
}

function planOf(body: Json): Plan {
  const messages = body.messages as Json[];
  const last = messages.at(-1);
  const model = String(body.model);
  if (last?.role === 'tool') {
    const results = messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    return { text: `Weather: ${results.join(' | ')}`, calls: [], finish: 'stop' };
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const cities = model.includes('single') ? CITIES.slice(0, 1) : CITIES;
    return {
      text: null,
      calls: cities.map((city, index) => ({ id: `call_${index}_${city.toLowerCase()}`, name: 'get_weather', arguments: JSON.stringify({ location: city, unit: 'celsius' }) })),
      finish: 'tool_calls',
    };
  }
  const format = body.response_format as Json | undefined;
  if (format?.type === 'json_schema') return { text: '{"answer":"42"}', calls: [], finish: 'stop' };
  if (model === 'length') return { text: 'Hello from', calls: [], finish: 'length' };
  return { text: 'Hello from chat', calls: [], finish: 'stop' };
}

function chunk(model: string, delta: Json, finish: string | null = null, extra: Json = {}): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
}

function thirds(text: string): string[] {
  const size = Math.ceil(text.length / 3);
  return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)];
}

function stream(res: http.ServerResponse, body: Json, plan: Plan): void {
  const model = String(body.model);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk(model, { role: 'assistant', content: '' }));
  if (model === 'break') {
    res.write(chunk(model, { content: 'Hel' }), () => res.destroy());
    return;
  }
  if (plan.calls.length > 0) res.write(chunk(model, { content: 'Let me check.' }));
  const words = /^words-(\d+)$/.exec(model);
  if (words) res.write(Array.from({ length: Number(words[1]) }, (_, index) => chunk(model, { content: `w${index} ` })).join(''));
  else if (plan.text) for (const piece of thirds(plan.text)) if (piece) res.write(chunk(model, { content: piece }));
  plan.calls.forEach((call, index) => {
    res.write(chunk(model, { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of thirds(call.arguments)) res.write(chunk(model, { tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  res.write(chunk(model, {}, plan.finish));
  const options = body.stream_options as Json | undefined;
  if (options?.include_usage === true) {
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: USAGE })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

function answer(res: http.ServerResponse, body: Json, plan: Plan): void {
  const message: Json = { role: 'assistant', content: plan.text };
  if (plan.calls.length > 0) message.tool_calls = plan.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const text = JSON.stringify({
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finish }],
    usage: USAGE,
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeToolsUpstream(): Promise<FakeToolsUpstream> {
  const requests: ToolsRecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const json = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Json;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json });
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'invalid_request_error' } }));
        return;
      }
      const plan = planOf(json);
      if (json.stream === true) stream(res, json, plan);
      else answer(res, json, plan);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
