/**
 * A fake OpenAI-compatible upstream on 127.0.0.1 that speaks OpenAI's wire format (JSON and SSE streams) and
 * records every request it receives. Behaviour is chosen by the model name, so tests need no shared state:
 *   slow-<ms>      answers after <ms> milliseconds (streams: the first chunk comes at once, the rest after <ms>)
 *   error-<status> answers that status with an OpenAI error body
 *   garbage        answers 200 with a body that is not JSON
 *   nodone         streams without the final `data: [DONE]`
 *   break          streams one chunk, then destroys the connection
 *   ratelimited-<ms>  answers 429 with `retry-after-ms: <ms>`
 *   flaky-<n>-<tag>   answers 503 to the first <n> requests with that exact model, then succeeds
 *   echo...        (chat, not streamed) answers "You asked: <the last message's content>"
 *   long-<n>       (responses) <n> characters of output text
 *   words-stream-<n>  (chat streams) a long answer: <n> content chunks "w0 ", "w1 ", ...
 *   words-<n>      (embeddings) a bag of the input's lower-cased words hashed into <n> dimensions: texts that share
 *                  most of their words are close, so a paraphrase scores high and another question low
 * A chat stream with `n` > 1: choice 0 says "Hello world" and stops; each further choice then streams ~8 KB and
 * stops at its length.
 * Unknown paths echo the request back as JSON. A request whose connection closes before its answer is complete
 * (the gateway timed out or its client went away) is counted in `aborted`, and its pending delay ends at once.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface FakeUpstream {
  origin: string;
  /** base URL to use as x-gateway-custom-host: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  connections: number;
  /** requests whose connection closed before the answer was complete */
  aborted: number;
  /** resolves once `aborted` reaches `count` (at once if it already has) */
  waitForAborted(count: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

const CREATED = 1_700_000_000;
/** requests seen per flaky-<n>-<tag> model (process-wide: each test uses its own tag) */
const flakyCounts = new Map<string, number>();

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null, index = 0): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;
}

/** Deterministic embeddings: each word adds 1 to the dimension its hash picks. */
export function wordVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const slot = createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
}

function lastContent(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = messages.at(-1);
  const content = typeof last === 'object' && last !== null ? (last as { content?: unknown }).content : undefined;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** waits `ms`, or less when the connection closes first */
const delay = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

async function streamChat(res: http.ServerResponse, body: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
  const model = String(body.model);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk(model, { role: 'assistant', content: '' }));
  const slow = /^slow-(\d+)$/.exec(model);
  if (slow) await delay(Number(slow[1]), signal);
  if (signal?.aborted) return;
  if (model === 'break') {
    // the connection dies right behind the partial chunk (both often reach the gateway in one read): the gateway
    // still relays the chunk before its error event
    res.write(chunk(model, { content: 'Hel' }), () => res.destroy());
    return;
  }
  // words-stream-<n>: a long answer, n content chunks "w0 ", "w1 ", ... written a hundred at a time
  const words = /^words-stream-(\d+)$/.exec(model);
  if (words) {
    for (let from = 0; from < Number(words[1]); from += 100) {
      let batch = '';
      for (let index = from; index < Math.min(from + 100, Number(words[1])); index += 1) batch += chunk(model, { content: `w${index} ` });
      if (!res.write(batch)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } else {
    res.write(chunk(model, { content: 'Hello' }));
    res.write(chunk(model, { content: ' world' }));
  }
  res.write(chunk(model, {}, 'stop'));
  // n > 1: each further choice runs on for ~8 KB after the first finished, then stops at its length
  const choices = typeof body.n === 'number' ? body.n : 1;
  for (let index = 1; index < choices; index += 1) {
    for (let piece = 0; piece < 40; piece += 1) res.write(chunk(model, { content: `${'more '.repeat(20)}` }, null, index));
    res.write(chunk(model, {}, 'length', index));
  }
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) {
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`,
    );
  }
  if (model !== 'nodone') res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * A Response as OpenAI's Responses API answers. `max_output_tokens: 1` ends it incomplete (max_output_tokens); the
 * model `long-<n>` writes <n> characters of text (a stream's last event, which repeats the Response, is then long).
 */
function responseObject(model: string, body: Record<string, unknown>): Record<string, unknown> {
  const long = /^long-(\d+)$/.exec(model);
  const text = long ? 'word '.repeat(Math.ceil(Number(long[1]) / 5)).slice(0, Number(long[1])) : 'Hello world';
  const incomplete = body.max_output_tokens === 1;
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: CREATED,
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    model,
    output: [{ type: 'message', id: 'msg_fake', status: incomplete ? 'incomplete' : 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

/** A Response streamed as the Responses API's events, the last one (completed or incomplete) carrying it whole. */
function streamResponse(res: http.ServerResponse, response: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const output = response.output as Array<{ id: string; content: Array<{ text: string }> }>;
  const message = output[0]!;
  res.write(event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }));
  res.write(event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }));
  res.write(event('response.output_text.delta', { item_id: message.id, output_index: 0, content_index: 0, delta: message.content[0]!.text }));
  res.write(event('response.output_item.done', { output_index: 0, item: message }));
  res.end(event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response }));
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string, signal?: AbortSignal): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  let json: unknown;
  try {
    json = raw ? JSON.parse(raw) : undefined;
  } catch {
    json = undefined;
  }
  const body = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const limited = /^ratelimited-(\d+)$/.exec(model);
  if (limited) {
    send(res, 429, { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limited' } }, { 'retry-after-ms': limited[1]! });
    return;
  }
  const flaky = /^flaky-(\d+)-/.exec(model);
  if (flaky) {
    const seen = (flakyCounts.get(model) ?? 0) + 1;
    flakyCounts.set(model, seen);
    if (seen <= Number(flaky[1])) {
      send(res, 503, { error: { message: `flaky failure ${seen}`, type: 'server_error', param: null, code: 'flaky' } });
      return;
    }
  }
  const errorStatus = /^error-(\d{3})$/.exec(model);
  if (errorStatus) {
    send(res, Number(errorStatus[1]), { error: { message: `fake upstream error ${errorStatus[1]}`, type: 'fake_error', param: null, code: 'fake' } });
    return;
  }
  if (model === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('this is not json');
    return;
  }
  const slow = /^slow-(\d+)$/.exec(model);
  if (slow && body.stream !== true) await delay(Number(slow[1]), signal);
  if (signal?.aborted) return;

  const route = `${req.method} ${url.pathname}`;
  if (route === 'POST /v1/chat/completions') {
    if (body.stream === true) return streamChat(res, body, signal);
    send(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: model.startsWith('echo') ? `You asked: ${lastContent(body)}` : 'Hello world' }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    }, { 'x-request-id': 'req_fake', 'set-cookie': 'tracking=1' });
    return;
  }
  if (route === 'POST /v1/completions') {
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const text of ['Hello', ' world']) {
        res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: 'text_completion', created: CREATED, model, choices: [{ index: 0, text, logprobs: null, finish_reason: null }] })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    send(res, 200, {
      id: 'cmpl-fake',
      object: 'text_completion',
      created: CREATED,
      model,
      choices: [{ index: 0, text: 'Hello world', logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    return;
  }
  if (route === 'POST /v1/embeddings') {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const words = /^words-(\d+)$/.exec(model);
    send(res, 200, {
      object: 'list',
      model,
      data: inputs.map((input, index) => ({
        object: 'embedding',
        index,
        embedding: words ? wordVector(String(input), Number(words[1])) : [0.1 * (index + 1), 0.2, 0.3],
      })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
    return;
  }
  if (route === 'GET /v1/models') {
    send(res, 200, { object: 'list', data: [{ id: 'upstream-model-1', object: 'model', created: CREATED, owned_by: 'fake' }] });
    return;
  }
  if (route === 'POST /v1/rerank') {
    // Jina-shaped: results deliberately not sorted
    const documents = Array.isArray(body.documents) ? body.documents : [];
    send(res, 200, {
      model,
      usage: { total_tokens: 42 },
      results: documents.map((document, index) => ({
        index,
        relevance_score: (index + 1) / (documents.length + 1),
        document: { text: typeof document === 'string' ? document : (document as { text: string }).text },
      })),
    });
    return;
  }
  if (route === 'POST /v1/responses') {
    const response = responseObject(model, body);
    if (body.stream === true) return streamResponse(res, response);
    send(res, 200, response);
    return;
  }
  const responseItems = /^\/v1\/responses\/([^/]+)\/input_items$/.exec(url.pathname);
  if (req.method === 'GET' && responseItems) {
    send(res, 200, {
      object: 'list',
      data: [{ id: 'msg_in_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      has_more: false,
      first_id: 'msg_in_1',
      last_id: 'msg_in_1',
      echo_query: Object.fromEntries(url.searchParams),
    });
    return;
  }
  const responseOne = /^\/v1\/responses\/([^/]+)$/.exec(url.pathname);
  if (responseOne && req.method === 'GET') {
    send(res, 200, { id: responseOne[1], object: 'response', created_at: CREATED, status: 'completed', model: 'fake-model', output: [] });
    return;
  }
  if (responseOne && req.method === 'DELETE') {
    send(res, 200, { id: responseOne[1], object: 'response', deleted: true });
    return;
  }
  send(res, 200, { echo: true, method: req.method, path: url.pathname, query: url.search, body: raw }, { 'x-upstream-echo': '1' });
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const state = { connections: 0, aborted: 0 };
  const abortWaiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const closed = new AbortController();
    res.once('close', () => {
      if (res.writableFinished) return;
      state.aborted += 1;
      closed.abort();
      for (const wake of abortWaiters) wake();
    });
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      let json: unknown;
      try {
        json = raw ? JSON.parse(raw) : undefined;
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw, json });
      handle(req, res, raw, closed.signal).catch(() => res.destroy());
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    get connections() {
      return state.connections;
    },
    get aborted() {
      return state.aborted;
    },
    waitForAborted(count: number) {
      return new Promise<void>((resolve) => {
        const wake = () => {
          if (state.aborted < count) return;
          abortWaiters.delete(wake);
          resolve();
        };
        abortWaiters.add(wake);
        wake();
      });
    },
    reset() {
      requests.length = 0;
      state.connections = 0;
      state.aborted = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
