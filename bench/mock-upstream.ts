/**
 * Mock OpenAI-compatible upstream for the benchmark. Plain node:http, no framework, responses prebuilt so it
 * costs as little CPU as possible per request.
 *
 *   POST /v1/chat/completions   reads the body, answers a fixed chat.completion; with "stream": true, answers
 *                               text/event-stream: ~10 chat.completion.chunk events then `data: [DONE]`, in two
 *                               writes, no timers. With stream_options.include_usage it adds the usage chunk.
 *   GET  /v1/models             a one-model list.
 *
 * Listens on 127.0.0.1, random port (or MOCK_PORT), and prints {"port":N} on stdout once listening.
 * Run: node --import tsx bench/mock-upstream.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MOCK_COMPLETION_ID, MOCK_MODEL, MOCK_REPLY, announcePort, exitWithParent } from './shared.ts';

const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 1040, completion_tokens: 14, total_tokens: 1054 };

const completionBody = Buffer.from(
  JSON.stringify({
    id: MOCK_COMPLETION_ID,
    object: 'chat.completion',
    created: CREATED,
    model: MOCK_MODEL,
    system_fingerprint: 'fp_bench',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: MOCK_REPLY, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
  }),
);

function chunk(delta: Record<string, unknown>, finishReason: string | null): string {
  const event = {
    id: MOCK_COMPLETION_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MOCK_MODEL,
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Splits the reply into 8 content pieces that concatenate back to MOCK_REPLY. */
function splitReply(text: string, parts: number): string[] {
  const words = text.split(/(?<= )/);
  const per = Math.ceil(words.length / parts);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

const streamHead = Buffer.from(chunk({ role: 'assistant', content: '', refusal: null }, null));
const streamContent = splitReply(MOCK_REPLY, 8)
  .map((piece) => chunk({ content: piece }, null))
  .join('');
const streamStop = chunk({}, 'stop');
const usageChunk = `data: ${JSON.stringify({
  id: MOCK_COMPLETION_ID,
  object: 'chat.completion.chunk',
  created: CREATED,
  model: MOCK_MODEL,
  system_fingerprint: 'fp_bench',
  choices: [],
  usage: USAGE,
})}\n\n`;
const DONE = 'data: [DONE]\n\n';
const streamTail = Buffer.from(streamContent + streamStop + DONE);
const streamTailWithUsage = Buffer.from(streamContent + streamStop + usageChunk + DONE);

const modelsBody = Buffer.from(
  JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: CREATED, owned_by: 'bench' }] }),
);

function sendJson(res: http.ServerResponse, status: number, body: Buffer | string): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': buf.length });
  res.end(buf);
}

function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

const server = http.createServer((req, res) => {
  const path = req.url?.split('?', 1)[0];
  if (req.method === 'POST' && path === '/v1/chat/completions') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        sendJson(res, 400, errorBody('mock upstream: body is not JSON', 'invalid_request_error'));
        return;
      }
      const body = (parsed ?? {}) as { stream?: unknown; stream_options?: { include_usage?: unknown } | null };
      if (body.stream === true) {
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-request-id': 'req_bench_mock',
        });
        res.write(streamHead);
        res.end(body.stream_options?.include_usage === true ? streamTailWithUsage : streamTail);
      } else {
        res.setHeader('x-request-id', 'req_bench_mock');
        sendJson(res, 200, completionBody);
      }
    });
    req.on('error', () => res.destroy());
    return;
  }
  if (req.method === 'GET' && path === '/v1/models') {
    sendJson(res, 200, modelsBody);
    return;
  }
  // Drain whatever was sent so the keep-alive connection stays usable.
  req.resume();
  sendJson(res, 404, errorBody(`mock upstream: no route ${req.method ?? ''} ${path ?? ''}`, 'not_found_error'));
});

server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.requestTimeout = 0;

server.listen(Number(process.env.MOCK_PORT ?? 0), '127.0.0.1', () => {
  announcePort((server.address() as AddressInfo).port);
});

exitWithParent(() => {
  server.close();
  server.closeAllConnections();
});
