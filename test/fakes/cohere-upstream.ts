/**
 * A fake Cohere API on 127.0.0.1 (https://docs.cohere.com/reference/about) that CHECKS what it receives and
 * answers in Cohere's documented v2 formats: chat (JSON, or typed SSE events when `stream: true`), embed and
 * rerank. A request that breaks Cohere's contract is answered 422 `{ message: "fake cohere: ..." }`, so the
 * test that sent it fails with the reason. Behaviour by model name:
 *   error-<status>  answers that status with Cohere's error body `{ id, message }`
 *   garbage         answers 200 with a body that is not JSON
 *   stream-error    (streamed) ends with a message-end event carrying an error
 * Chat answers with two parallel tool calls when the request carries tools, else with text.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const COHERE_TEST_KEY = 'co-test-key';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export interface FakeCohere {
  /** base URL for x-gateway-custom-host: http://127.0.0.1:<port> (Cohere's paths carry their version) */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

class Rejected extends Error {}

function check(condition: unknown, problem: string): asserts condition {
  if (!condition) throw new Rejected(`fake cohere: ${problem}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const OPENAI_ONLY = ['top_p', 'stop', 'max_completion_tokens', 'n', 'stream_options', 'logit_bias', 'user', 'parallel_tool_calls', 'strict_reference_compliance'];

function checkChat(body: Record<string, unknown>): void {
  check(typeof body.model === 'string', 'chat needs a model');
  check(Array.isArray(body.messages) && body.messages.length > 0, 'chat needs messages');
  for (const field of OPENAI_ONLY) check(!(field in body), `"${field}" is not a Cohere v2 chat field`);
  const callIds = new Set<string>();
  for (const message of body.messages as unknown[]) {
    check(isRecord(message), 'a message is not an object');
    check(['system', 'user', 'assistant', 'tool'].includes(String(message.role)), `role "${String(message.role)}" is not Cohere's`);
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      check(!('content' in message), 'an assistant message with tool_calls carries its text in tool_plan');
      for (const call of message.tool_calls) check(isRecord(call) && typeof call.id === 'string' && call.type === 'function', 'a tool call needs id and type');
      for (const call of message.tool_calls as Array<{ id: string }>) callIds.add(call.id);
    }
    if (message.role === 'tool') check(callIds.has(String(message.tool_call_id)), 'a tool message answers no earlier tool call');
  }
  if (body.tool_choice !== undefined) check(body.tool_choice === 'REQUIRED' || body.tool_choice === 'NONE', 'tool_choice is REQUIRED or NONE');
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) check(isRecord(tool) && tool.type === 'function' && isRecord(tool.function) && isRecord(tool.function.parameters), 'a tool needs function.parameters');
  }
  if (body.p !== undefined) check(typeof body.p === 'number' && body.p >= 0.01 && body.p <= 0.99, 'p is within [0.01, 0.99]');
}

const USAGE = { billed_units: { input_tokens: 12, output_tokens: 9 }, tokens: { input_tokens: 210, output_tokens: 9 }, cached_tokens: 128 };
const TOOL_CALLS = [
  { id: 'get_weather_1a2b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
  { id: 'get_weather_3c4d', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
];

function chatAnswer(body: Record<string, unknown>): unknown {
  if (Array.isArray(body.tools)) {
    return { id: 'chat-tools-1', message: { role: 'assistant', tool_plan: 'I will check both cities.', tool_calls: TOOL_CALLS }, finish_reason: 'TOOL_CALL', usage: USAGE };
  }
  return { id: 'chat-text-1', message: { role: 'assistant', content: [{ type: 'text', text: 'Bonjour!' }] }, finish_reason: 'COMPLETE', usage: USAGE };
}

function streamEvents(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [{ type: 'message-start', id: 'chat-stream-1', delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } }];
  if (body.model === 'stream-error') {
    events.push({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    events.push({ type: 'content-delta', index: 0, delta: { message: { content: { text: 'Par' } } } });
    events.push({ type: 'message-end', delta: { finish_reason: 'ERROR', error: 'internal model failure' } });
    return events;
  }
  if (!Array.isArray(body.tools)) {
    events.push({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const text of ['Bon', 'jour', '!']) events.push({ type: 'content-delta', index: 0, delta: { message: { content: { text } } } });
    events.push({ type: 'content-end', index: 0 });
    events.push({ type: 'message-end', delta: { finish_reason: 'COMPLETE', usage: USAGE } });
    return events;
  }
  events.push({ type: 'tool-plan-delta', delta: { message: { tool_plan: 'I will check both cities.' } } });
  TOOL_CALLS.forEach((call, index) => {
    events.push({ type: 'tool-call-start', index, delta: { message: { tool_calls: { ...call, function: { name: call.function.name, arguments: '' } } } } });
    const args = call.function.arguments;
    for (const piece of [args.slice(0, 3), args.slice(3, 9), args.slice(9)]) {
      events.push({ type: 'tool-call-delta', index, delta: { message: { tool_calls: { function: { arguments: piece } } } } });
    }
    events.push({ type: 'tool-call-end', index });
  });
  events.push({ type: 'message-end', delta: { finish_reason: 'TOOL_CALL', usage: USAGE } });
  return events;
}

function streamChat(res: http.ServerResponse, body: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const text = streamEvents(body).map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
  // cut the stream mid-event: the gateway must frame SSE, not trust write boundaries
  const cut = Math.floor(text.length / 2);
  res.write(text.slice(0, cut));
  setTimeout(() => res.end(text.slice(cut)), 5);
}

function embed(body: Record<string, unknown>): unknown {
  check(Array.isArray(body.texts) && body.texts.every((text) => typeof text === 'string'), 'embed takes texts: string[]');
  check(['search_document', 'search_query', 'classification', 'clustering'].includes(String(body.input_type)), 'embed needs an input_type');
  check(JSON.stringify(body.embedding_types) === '["float"]', 'the gateway asks for float embeddings');
  check(!('input' in body) && !('encoding_format' in body) && !('dimensions' in body), 'OpenAI embedding fields are not Cohere\'s');
  const texts = body.texts as string[];
  return {
    id: 'embed-1',
    texts,
    embeddings: { float: texts.map((_text, index) => [0.5 * (index + 1), -0.25, 0.125]) },
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: 3 * texts.length } },
    response_type: 'embeddings_by_type',
  };
}

function rerank(body: Record<string, unknown>): unknown {
  check(typeof body.query === 'string', 'rerank needs a query');
  check(Array.isArray(body.documents) && body.documents.every((document) => typeof document === 'string'), 'v2 rerank documents are strings');
  for (const field of ['return_documents', 'rank_fields', 'top_k']) check(!(field in body), `"${field}" is not a v2 rerank field`);
  const documents = body.documents as string[];
  // scores rise with the index; the answer starts at index 1, so it is not sorted
  const order = documents.map((_document, index) => (index + 1) % documents.length);
  return {
    id: 'rerank-1',
    results: order.map((index) => ({ index, relevance_score: (index + 1) / 10 })),
    meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
  };
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>): void {
  const model = typeof body.model === 'string' ? body.model : '';
  const status = /^error-(\d{3})$/.exec(model);
  if (status) return send(res, Number(status[1]), { id: 'err-1', message: `fake cohere says no (${status[1]})` });
  if (model === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>not json</html>');
    return;
  }
  check(req.headers.authorization === `Bearer ${COHERE_TEST_KEY}`, 'Authorization: Bearer <key> is required');
  check(String(req.headers['content-type']).startsWith('application/json'), 'the body is JSON');
  const route = `${req.method} ${req.url}`;
  if (route === 'POST /v2/chat') {
    checkChat(body);
    if (body.stream === true) return streamChat(res, body);
    check(!('stream' in body), 'a plain chat sends no stream field');
    return send(res, 200, chatAnswer(body));
  }
  if (route === 'POST /v2/embed') return send(res, 200, embed(body));
  if (route === 'POST /v2/rerank') return send(res, 200, rerank(body));
  send(res, 404, { message: `fake cohere: no route ${route}` });
}

export async function startFakeCohere(): Promise<FakeCohere> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let json: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
        if (isRecord(parsed)) json = parsed;
      } catch {
        return send(res, 400, { message: 'fake cohere: the body is not JSON' });
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json });
      try {
        handle(req, res, json);
      } catch (error) {
        if (error instanceof Rejected) send(res, 422, { message: error.message });
        else res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
