/**
 * A fake Anthropic API on 127.0.0.1 that checks what it receives and answers in Anthropic's documented format
 * (https://docs.anthropic.com/en/api/messages, .../streaming, .../errors, .../models-list).
 *
 * Checks, answered with Anthropic's own error bodies: `x-api-key` present (401 authentication_error),
 * `anthropic-version: 2023-06-01` (400), and for POST /v1/messages a body Anthropic would accept: only known
 * top-level fields ("Extra inputs are not permitted"), a model, a numeric max_tokens, and messages that start
 * with a user turn and alternate.
 *
 * Behaviour, chosen by the model name and the body:
 *   error-<status>   answers that status with an Anthropic error body
 *   garbage          answers 200 with a body that is not JSON
 *   stream-error     streams some text, then an `error` event (overloaded_error)
 *   words-<n>        (streamed) a long answer: its text block in <n> text deltas "w0 ", "w1 ", ...
 *   tools in the request (and no tool result yet): two parallel tool_use blocks; thinking: a thinking block first
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown> | undefined;
}

export interface FakeAnthropic {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const ALLOWED = new Set([
  'model', 'messages', 'max_tokens', 'system', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k',
  'tools', 'tool_choice', 'thinking', 'output_config', 'service_tier', 'container', 'mcp_servers', 'context_management',
]);

type Json = Record<string, unknown>;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake_anthropic', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fail(res: http.ServerResponse, status: number, type: string, message: string): void {
  send(res, status, { type: 'error', error: { type, message } });
}

/** What a real Anthropic API would refuse, as its error message; undefined when the body is acceptable. */
function bodyProblem(body: Json): string | undefined {
  for (const key of Object.keys(body)) if (!ALLOWED.has(key)) return `${key}: Extra inputs are not permitted`;
  if (typeof body.model !== 'string') return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  let expected = 'user';
  for (const [index, message] of (messages as Json[]).entries()) {
    if (message.role !== expected) return `messages.${index}.role: roles must alternate between "user" and "assistant", starting with "user"`;
    expected = expected === 'user' ? 'assistant' : 'user';
  }
  return undefined;
}

const hasToolResult = (body: Json) =>
  (body.messages as Json[]).some((message) => Array.isArray(message.content) && (message.content as Json[]).some((block) => block.type === 'tool_result'));

function answerBlocks(body: Json): { content: Json[]; stop: string } {
  const thinking = body.thinking ? [{ type: 'thinking', thinking: 'Let me think about the weather.', signature: 'sig_fake_1' }] : [];
  if (Array.isArray(body.tools) && body.tools.length > 0 && !hasToolResult(body)) {
    return {
      content: [
        ...thinking,
        { type: 'tool_use', id: 'toolu_paris', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'toolu_tokyo', name: 'get_weather', input: { location: 'Tokyo' } },
      ],
      stop: 'tool_use',
    };
  }
  return { content: [...thinking, { type: 'text', text: 'Hello world' }], stop: 'end_turn' };
}

const USAGE = { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 5 };

function streamAnswer(res: http.ServerResponse, body: Json): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = (event: string, data: Json) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const model = String(body.model);
  write('message_start', { type: 'message_start', message: { id: 'msg_fake_stream', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { ...USAGE, output_tokens: 1 } } });
  write('ping', { type: 'ping' });
  if (model === 'stream-error') {
    write('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    write('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial' } });
    write('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    res.end();
    return;
  }
  const { content, stop } = answerBlocks(body);
  content.forEach((block, index) => {
    if (block.type === 'text') {
      write('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      const words = /^words-(\d+)$/.exec(model);
      const texts = words ? Array.from({ length: Number(words[1]) }, (_, at) => `w${at} `) : ['Hello', ' world'];
      for (const text of texts) write('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else if (block.type === 'thinking') {
      write('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      write('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      write('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else {
      write('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      // split the arguments mid-token, as Anthropic does
      for (const part of [json.slice(0, 5), json.slice(5)]) write('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    write('content_block_stop', { type: 'content_block_stop', index });
  });
  write('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 42 } });
  write('message_stop', { type: 'message_stop' });
  res.end();
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Json | undefined): void {
  const url = new URL(req.url ?? '/', 'http://fake');
  if (!req.headers['x-api-key']) return fail(res, 401, 'authentication_error', 'x-api-key header is required');
  if (req.headers['anthropic-version'] !== '2023-06-01') return fail(res, 400, 'invalid_request_error', 'anthropic-version header is required');
  const route = `${req.method} ${url.pathname}`;
  if (route === 'GET /v1/models') {
    return send(res, 200, {
      data: [{ type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }],
      has_more: false,
      first_id: 'claude-sonnet-4-5-20250929',
      last_id: 'claude-sonnet-4-5-20250929',
    });
  }
  if (route === 'POST /v1/messages/count_tokens') return send(res, 200, { input_tokens: 14 });
  if (route !== 'POST /v1/messages') return fail(res, 404, 'not_found_error', `Not found: ${route}`);
  if (!body) return fail(res, 400, 'invalid_request_error', 'The request body is not valid JSON');
  const problem = bodyProblem(body);
  if (problem) return fail(res, 400, 'invalid_request_error', problem);
  const status = /^error-(\d{3})$/.exec(String(body.model));
  if (status) return fail(res, Number(status[1]), 'rate_limit_error', `Fake Anthropic error ${status[1]}: slow down`);
  if (body.model === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('this is not json');
    return;
  }
  if (body.stream === true) return streamAnswer(res, body);
  const { content, stop } = answerBlocks(body);
  send(res, 200, { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content, stop_reason: stop, stop_sequence: null, usage: USAGE });
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      let json: Json | undefined;
      try {
        const parsed: unknown = raw ? JSON.parse(raw) : undefined;
        json = typeof parsed === 'object' && parsed !== null ? (parsed as Json) : undefined;
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json });
      handle(req, res, json);
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
