/**
 * What building and encoding one request-log row costs the main thread, measured without a server, a socket or a
 * database: the bench's chat request (its headers, its 4.2 KB body) with the mock's JSON answer or its relayed stream,
 * put through `logRow` (src/logging/log-row.ts) and the PostgreSQL store's encoder (`encodeLogRow`), ROWS times after a
 * warm-up. Three figures a row: noted (the record made and, for a stream, its bytes noted as they pass: where a long
 * stream is folded), built (`logRow`), encoded. Deterministic where the load benchmarks are noisy: for A/B runs of a change to the row's path, and for
 * `node --cpu-prof --import tsx bench/log-row.ts` to see where a row's time goes.
 *
 * Run: node --import tsx bench/log-row.ts   (LOG_ROW_ROWS, default 200000; LOG_ROW_ROUNDS, default 3)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../src/core/context.ts';
import { logRow, type RowInputs } from '../src/logging/log-row.ts';
import { newRequestRecord, noteStreamBytes, noteStreamTail, noteTry, type RequestRecord } from '../src/logging/request-record.ts';
import { encodeLogRow, releaseEncodedLogRows, type EncodedLogRow } from '../src/storage/repositories/request-logs-binary.ts';
import { MOCK_COMPLETION_ID, MOCK_MODEL, MOCK_REPLY, makeChatRequest } from './shared.ts';
import { benchHeaders } from './startup.ts';

const ROWS = Number(process.env.LOG_ROW_ROWS ?? 200_000);
const ROUNDS = Number(process.env.LOG_ROW_ROUNDS ?? 3);

const principal = {
  kind: 'api_key',
  organisationId: randomUUID(),
  workspaceId: randomUUID(),
  keyId: randomUUID(),
  userId: randomUUID(),
} as unknown as Principal;

const USAGE = { prompt_tokens: 1040, completion_tokens: 14, total_tokens: 1054 };
const answer = JSON.stringify({
  id: MOCK_COMPLETION_ID,
  object: 'chat.completion',
  created: 1_700_000_000,
  model: MOCK_MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: MOCK_REPLY, refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: USAGE,
});
/** an event of the stream; `padding`: OpenAI's `obfuscation` field, random characters that change from event to event */
const event = (delta: object, finish: string | null, padding?: string) =>
  `data: ${JSON.stringify({ id: MOCK_COMPLETION_ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: MOCK_MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(padding === undefined ? {} : { obfuscation: padding }) })}\n\n`;
/** a relayed stream of the mock's reply, a word an event, `repeat` times over */
function streamOf(repeat: number, obfuscated: boolean): Buffer[] {
  const words = Array.from({ length: repeat }, () => MOCK_REPLY.split(/(?<= )/)).flat();
  const padding = (index: number) => (obfuscated ? 'abcdefghijkl'.slice(0, 2 + (index % 10)) : undefined);
  const rest = Buffer.from(words.map((word, index) => event({ content: word }, null, padding(index))).join('') + event({}, 'stop') + 'data: [DONE]\n\n');
  // read as a socket delivers it: chunks of at most 64 KB, cut anywhere
  const reads = Array.from({ length: Math.ceil(rest.length / 65_536) }, (_, index) => rest.subarray(index * 65_536, (index + 1) * 65_536));
  return [Buffer.from(event({ role: 'assistant', content: '' }, null)), ...reads];
}

/** a native Messages stream (Anthropic's events, relayed by /v1/messages) of the same reply, a word an event */
function messagesStreamOf(repeat: number): Buffer[] {
  const typed = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const words = Array.from({ length: repeat }, () => MOCK_REPLY.split(/(?<= )/)).flat();
  const text =
    typed('message_start', { message: { id: 'msg_bench', type: 'message', role: 'assistant', model: MOCK_MODEL, content: [], stop_reason: null, usage: { input_tokens: 1040, output_tokens: 1 } } }) +
    typed('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
    words.map((word) => typed('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } })).join('') +
    typed('content_block_stop', { index: 0 }) +
    typed('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } }) +
    typed('message_stop', {});
  const bytes = Buffer.from(text);
  return Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, index) => bytes.subarray(index * 65_536, (index + 1) * 65_536));
}

function inputs(stream: boolean, bodies: boolean, repeat = 1, obfuscated = false, messages = false): () => RowInputs {
  const streamed = messages ? messagesStreamOf(repeat) : streamOf(repeat, obfuscated);
  const requestBody = makeChatRequest(stream);
  const rawBody = Buffer.from(JSON.stringify(requestBody));
  const requestHeaders: IncomingHttpHeaders = {
    host: '127.0.0.1:8787',
    connection: 'keep-alive',
    'content-length': String(rawBody.length),
    ...benchHeaders('bench-admin-key-0123456789', 40_000),
    ...(bodies ? {} : { 'x-gateway-debug': 'false' }),
  };
  const responseHeaders = { 'content-type': stream ? 'text/event-stream' : 'application/json', 'x-gateway-trace-id': randomUUID(), 'x-gateway-provider': 'openai', 'x-gateway-retry-attempt-count': '0' };
  return () => {
    const now = Date.now();
    const record: RequestRecord = newRequestRecord(now - 3, 'chat');
    record.provider = 'openai';
    record.model = MOCK_MODEL;
    noteTry(record, { path: null, provider: 'openai', model: MOCK_MODEL, status: 200, error: null, retry: 0 }, now - 2, now - 1);
    if (stream) {
      record.streamed = true;
      for (const buffer of streamed) noteStreamBytes(record, buffer);
      noteStreamTail(record, streamed.at(-2), streamed.at(-1));
    } else {
      record.usage = { prompt: USAGE.prompt_tokens, completion: USAGE.completion_tokens, total: USAGE.total_tokens, cached: undefined, cacheWrite: undefined, reasoning: undefined } as RequestRecord['usage'];
      record.finishReasons = ['stop'];
      record.response = { kind: 'text', text: answer };
    }
    return {
      id: randomUUID(),
      record,
      principal,
      gateway: undefined,
      fallbackTraceId: randomUUID(),
      method: 'POST',
      url: '/v1/chat/completions',
      requestBody,
      rawBody,
      requestHeaders,
      responseHeaders,
      headersToMask: [],
      bodyCap: 64 * 1024,
      status: 200,
      completed: true,
      headersSent: true,
      endedAt: now,
    };
  };
}

function measure(name: string, make: () => RowInputs): void {
  const figures: string[] = [];
  for (let round = 0; round < ROUNDS + 1; round += 1) {
    let noted = 0n;
    let build = 0n;
    let encode = 0n;
    let batch: EncodedLogRow[] = [];
    for (let index = 0; index < ROWS; index += 1) {
      const making = process.hrtime.bigint();
      const input = make();
      const started = process.hrtime.bigint();
      noted += started - making;
      const row = logRow(input);
      const built = process.hrtime.bigint();
      batch.push(encodeLogRow(row));
      encode += process.hrtime.bigint() - built;
      build += built - started;
      // batches written and released as the writer does, so the slabs are reused (new memory would fault its pages in)
      if (batch.length === 200) {
        releaseEncodedLogRows(batch);
        batch = [];
      }
    }
    // round 0 warms up (the compiler, the slabs)
    const us = (ns: bigint) => (Number(ns) / ROWS / 1000).toFixed(2);
    if (round > 0) figures.push(`${us(noted)} + ${us(build)} + ${us(encode)}`);
  }
  console.log(`${name.padEnd(28)} µs a row, noted + built + encoded: ${figures.join(', ')}`);
}

console.log(`${ROWS} rows a round, ${ROUNDS} rounds after a warm-up (the bench's chat request, ${Buffer.byteLength(JSON.stringify(makeChatRequest(false)))} bytes)`);
measure('JSON answer, bodies', inputs(false, true));
measure('JSON answer, no bodies', inputs(false, false));
measure('relayed stream, bodies', inputs(true, true));
measure('relayed stream, no bodies', inputs(true, false));
// a longer answer (~1,000 events, ~250 KB of events): what reassembling a stream costs an event
measure('relayed stream x80, bodies', inputs(true, true, 80));
measure('the same, obfuscation field', inputs(true, true, 80, true));
// four times as long (~1 MB of events): past what a request keeps (256 KB), folded a part at a time as it passes
measure('relayed stream x320, bodies', inputs(true, true, 320));
// a stream of Messages events of as many events, relayed by a pass-through route: logged as its text (cut at the cap)
measure('pass-through Messages x80', inputs(true, true, 80, false, true));
