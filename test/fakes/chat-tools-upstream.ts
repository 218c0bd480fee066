/**
 * A fake OpenAI-compatible chat upstream on 127.0.0.1 that acts like a model using tools, in OpenAI's wire format
 * (JSON and SSE streams, usage in the last chunk when asked). What it answers depends on the conversation:
 *   tools offered and the last message from the user -> a call of the first tool with `{"city":"Paris"}`
 *   the last message a tool result                  -> "The weather: <the tool's output>"
 *   response_format json_schema                     -> `{"city":"Paris","temperature":21}`
 *   otherwise                                       -> "Hello world"
 * Every request is recorded (the parsed body), so tests check what the gateway sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatToolsUpstream {
  baseUrl: string;
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

interface Message {
  role: string;
  content?: unknown;
}

interface Answer {
  content: string | null;
  toolCall?: { id: string; name: string; arguments: string };
}

function answerOf(body: Record<string, unknown>): Answer {
  const messages = (body.messages ?? []) as Message[];
  const last = messages.at(-1);
  const tools = (body.tools ?? []) as Array<{ function: { name: string } }>;
  if (last?.role === 'tool') return { content: `The weather: ${String(last.content)}` };
  if (tools.length > 0 && last?.role === 'user') return { content: null, toolCall: { id: 'call_weather_1', name: tools[0]!.function.name, arguments: '{"city":"Paris"}' } };
  const format = body.response_format as { type?: string } | undefined;
  if (format?.type === 'json_schema') return { content: '{"city":"Paris","temperature":21}' };
  return { content: 'Hello world' };
}

const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 3 } };

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

function stream(res: http.ServerResponse, model: string, answer: Answer, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk(model, { role: 'assistant', content: '' }));
  if (answer.toolCall) {
    const { id, name, arguments: args } = answer.toolCall;
    res.write(chunk(model, { tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }));
    // the arguments in pieces, as providers send them
    for (const piece of [args.slice(0, 5), args.slice(5)]) res.write(chunk(model, { tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    res.write(chunk(model, {}, 'tool_calls'));
  } else {
    const text = answer.content ?? '';
    const middle = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, middle), text.slice(middle)]) res.write(chunk(model, { content: piece }));
    res.write(chunk(model, {}, 'stop'));
  }
  if (includeUsage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: USAGE })}\n\n`);
  res.end('data: [DONE]\n\n');
}

export async function startChatToolsUpstream(): Promise<ChatToolsUpstream> {
  const requests: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'not_found' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      requests.push(body);
      const model = String(body.model);
      const answer = answerOf(body);
      if (body.stream === true) return stream(res, model, answer, (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true);
      const message = { role: 'assistant', content: answer.content, ...(answer.toolCall ? { tool_calls: [{ id: answer.toolCall.id, type: 'function', function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }] } : {}) };
      const text = JSON.stringify({
        id: 'chatcmpl-tools',
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: answer.toolCall ? 'tool_calls' : 'stop' }],
        usage: USAGE,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
