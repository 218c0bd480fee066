/**
 * What the request log learns about one request while it runs. The request-log hook creates the record when an
 * inference request arrives; the pipeline fills it as it goes (its log-record step: the outcome; the stream writers:
 * a stream's usage, errors written into it; the error handler: the error the client got); the hook turns
 * it into a row once the answer has ended. Filling it is a few property writes: nothing is re-run or re-parsed for
 * the log's sake beyond a relayed stream's last bytes. Every helper accepts `undefined` (routes without a log).
 */
import type { HookResult } from '../guardrails/hooks.ts';
import { costOfUsage } from '../pricing/cost.ts';
import type { ModelPrice } from '../pricing/model-price.ts';
import { finishedEvents, finishReasonsInJson, finishReasonsOf, finishReasonsOfChunks, responseFinishReasons } from './finish-reasons.ts';
import { FinalEventKeeper, responseAtEnd, type StreamTail } from './stream-end.ts';
import { foldKeptBytes, foldKeptChunks, type KeptBytes, type KeptChunks } from './stream-fold.ts';
import { streamTailText, usageInText, usageOf, type TokenUsage } from './usage.ts';

export interface LoggedError {
  message: string;
  type: string | null;
  code: string | null;
}

export interface RequestRecord {
  /** ms since the epoch when the request arrived */
  readonly startedAt: number;
  route: string | undefined;
  provider: string | undefined;
  /** the model sent to the provider (after override_params) */
  model: string | undefined;
  /** the model the answer names, for requests that name none */
  answerModel: string | undefined;
  /** the answer went out as a stream */
  streamed: boolean;
  cacheStatus: string | undefined;
  retries: number;
  optionPath: string | undefined;
  configId: string | undefined;
  configVersionId: string | undefined;
  usage: TokenUsage | undefined;
  /**
   * the chosen answer's model price (the cost step, src/pipeline/steps/cost.ts); null: looked up, none known. The
   * cost is usage x price when the row is built, so a stream's usage noted at its end is priced too.
   */
  price: ModelPrice | null | undefined;
  /** the answer came from the response cache: nothing was paid for it, and its price is a saving */
  servedFromCache: boolean;
  /**
   * picodollars spent on attempts that answered and were not chosen (a fallback after an answer its guardrails
   * failed); null when one of them reported usage and no price is known; undefined when none reported usage
   */
  earlierAttemptsCost: bigint | null | undefined;
  /** the saved provider (`@slug`, a virtual key) the request used, and its integration (the integrations group sets them) */
  providerSlug: string | undefined;
  integrationId: string | undefined;
  inputVerdicts: readonly HookResult[] | undefined;
  outputVerdicts: readonly HookResult[] | undefined;
  error: LoggedError | undefined;
  /**
   * the answer's finish reasons, for traces: noted as the answer passes (a JSON answer's, a stream's chunks', a
   * relayed stream's tail), whether or not its bodies are logged
   */
  finishReasons: readonly string[] | undefined;
  /** a translated stream's finish reason by choice index, as its chunks pass */
  finishByChoice: Map<number, string> | undefined;
  /**
   * the request asked for more than one choice (`n` > 1): a relayed stream's choices may finish far apart, so its
   * bytes are kept (by reference) for their finish reasons even when its body is not logged
   */
  manyChoices: boolean;
  /**
   * text kept by reference for what the row reads after the answer has gone (answerFacts): a relayed stream's last
   * bytes (its finish reasons and model) or a cached answer's JSON (its finish reasons)
   */
  laterFacts: ({ kind: 'stream-tail' } & StreamTail) | { kind: 'cached'; text: string } | undefined;
  /** a relayed `/v1/responses` stream's reads from where its last event starts (its Response, for the body and spans) */
  finalEvent: FinalEventKeeper | undefined;
  /** a relayed stream's bytes kept for its finish reasons alone (manyChoices, no body logged): the first STREAM_KEEP_BYTES */
  streamBytes: KeptBytes | undefined;
  /** every upstream try (fallbacks and retries), in order; undefined until the first one */
  attempts: AttemptLog[] | undefined;
  /** ms since the epoch: the first try was sent (the end of queueing and the gateway's own work) */
  firstSendAt: number | undefined;
  /** ms since the epoch: the chosen answer was read whole (a stream ends with the response) */
  upstreamEndAt: number | undefined;
  /** ms since the epoch: the first byte of a streamed answer (its first token) went to the client */
  firstByteAt: number | undefined;
  /** single | fallback | loadbalance | conditional */
  mode: string | undefined;
  /** false: the workspace keeps bodies out of its logs */
  logBodies: boolean;
  /** the headers a stream was opened with (a hijacked reply's headers are not Fastify's to report) */
  streamHeaders: Record<string, string | string[]> | undefined;
  /** the answer the client got, kept by reference until the row is built (log-bodies.ts turns it into text) */
  response: LoggedResponse | undefined;
  /** the saved prompt version a prompt completion ran (POST /v1/prompts/{promptId}/completions) */
  prompt?: { id: string; slug: string; versionId: string } | undefined;
}

/** One upstream try, as the log stores it (the `attempts` column). Times are ms after the request's start. */
// a type, not an interface: it is stored as a JSON object (Record<string, unknown>)
export type AttemptLog = {
  path: string | null;
  provider: string;
  model: string | null;
  started_ms: number;
  duration_ms: number;
  /** the provider's status, or the gateway's for a try without an answer (408 timeout, 502 unreachable) */
  status: number | null;
  error: { type: string; message: string } | null;
  /** 0 for the first try on a target, then 1, 2 ... for its retries */
  retry: number;
};

/**
 * References to the answer, no copies: a JSON text, an object, a stream's canonical chunks or its raw bytes; a
 * stream's `dropped` when parts of it past what is kept were not (its logged body is then marked as cut).
 */
export type LoggedResponse =
  | { kind: 'text'; text: string }
  | { kind: 'object'; value: unknown; dropped?: boolean }
  | ({ kind: 'chunks'; dropped?: boolean } & KeptChunks)
  | ({ kind: 'bytes'; dropped?: boolean } & KeptBytes);

/**
 * A stream is kept for the log up to this many bytes (or chunks), so a request's memory stays bounded. Then a stream
 * of OpenAI chunks is folded into its answer so far and keeping goes on (stream-fold.ts: ~1,100 relayed OpenAI
 * chunks are 256 KB); the rest of another stream is not kept, and its logged body is marked as cut.
 */
export const STREAM_KEEP_BYTES = 256 * 1024;
const STREAM_KEEP_CHUNKS = 4096;

export function newRequestRecord(startedAt: number, route: string | undefined): RequestRecord {
  return {
    startedAt,
    route,
    provider: undefined,
    model: undefined,
    answerModel: undefined,
    streamed: false,
    cacheStatus: undefined,
    retries: 0,
    optionPath: undefined,
    configId: undefined,
    configVersionId: undefined,
    usage: undefined,
    price: undefined,
    servedFromCache: false,
    earlierAttemptsCost: undefined,
    providerSlug: undefined,
    integrationId: undefined,
    inputVerdicts: undefined,
    outputVerdicts: undefined,
    error: undefined,
    finishReasons: undefined,
    finishByChoice: undefined,
    manyChoices: false,
    laterFacts: undefined,
    finalEvent: undefined,
    streamBytes: undefined,
    attempts: undefined,
    firstSendAt: undefined,
    upstreamEndAt: undefined,
    firstByteAt: undefined,
    mode: undefined,
    logBodies: true,
    response: undefined,
    streamHeaders: undefined,
  };
}

function stringField(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : undefined;
}

/** One canonical stream chunk: the final one carries the usage when the client asked for it. */
export function noteChunk(record: RequestRecord | undefined, chunk: unknown): void {
  if (!record || typeof chunk !== 'object' || chunk === null) return;
  if (record.firstByteAt === undefined) record.firstByteAt = Date.now();
  if (record.logBodies) {
    const kept = record.response;
    if (kept === undefined) record.response = { kind: 'chunks', chunks: [chunk] };
    else if (kept.kind === 'chunks') {
      if (kept.chunks.length < STREAM_KEEP_CHUNKS || foldKeptChunks(kept)) kept.chunks.push(chunk);
      else kept.dropped = true;
    }
  }
  const usage = (chunk as { usage?: unknown }).usage;
  if (usage) record.usage = usageOf(usage) ?? record.usage;
  record.answerModel ??= stringField(chunk, 'model');
  const choices = (chunk as { choices?: unknown }).choices;
  if (Array.isArray(choices)) noteFinish(record, choices);
}

/** A chunk's choices that finished (a string finish_reason): once per choice, so rebuilding the list is rare. */
function noteFinish(record: RequestRecord, choices: readonly unknown[]): void {
  for (let position = 0; position < choices.length; position += 1) {
    const choice = choices[position] as { index?: unknown; finish_reason?: unknown } | null;
    if (typeof choice !== 'object' || choice === null || typeof choice.finish_reason !== 'string') continue;
    const index = typeof choice.index === 'number' ? choice.index : position;
    (record.finishByChoice ??= new Map()).set(index, choice.finish_reason);
    record.finishReasons = [...record.finishByChoice].sort((a, b) => a[0] - b[0]).map(([, reason]) => reason);
  }
}

/**
 * A relayed stream's bytes as they pass (references; the first STREAM_KEEP_BYTES of them): for its logged body, or
 * when the request asked for many choices, for their finish reasons alone.
 */
export function noteStreamBytes(record: RequestRecord | undefined, buffer: Buffer): void {
  if (!record) return;
  if (record.firstByteAt === undefined) record.firstByteAt = Date.now();
  if (record.route === 'responses.create') (record.finalEvent ??= new FinalEventKeeper()).push(buffer);
  if (!record.logBodies) {
    if (!record.manyChoices) return;
    const kept = (record.streamBytes ??= { buffers: [], size: 0 });
    if (kept.size >= STREAM_KEEP_BYTES && !foldKeptBytes(kept)) return;
    kept.buffers.push(buffer);
    kept.size += buffer.length;
    return;
  }
  const kept = record.response;
  if (kept === undefined) record.response = { kind: 'bytes', buffers: [buffer], size: buffer.length };
  else if (kept.kind === 'bytes') {
    if (kept.size >= STREAM_KEEP_BYTES && !foldKeptBytes(kept)) {
      kept.dropped = true;
      return;
    }
    kept.buffers.push(buffer);
    kept.size += buffer.length;
  }
}

/** A whole answer (JSON text or object), by reference. */
export function noteResponse(record: RequestRecord | undefined, response: LoggedResponse): void {
  if (record && record.logBodies) record.response = response;
}

/** One upstream try has ended (with an answer's headers, a whole JSON answer, or a failure). */
export function noteTry(record: RequestRecord | undefined, entry: Omit<AttemptLog, 'started_ms' | 'duration_ms'>, startedAt: number, endedAt: number): void {
  if (!record) return;
  record.firstSendAt ??= startedAt;
  // fields written out: an object spread here showed in CPU profiles of the request path
  const logged: AttemptLog = {
    path: entry.path,
    provider: entry.provider,
    model: entry.model,
    started_ms: Math.max(0, startedAt - record.startedAt),
    duration_ms: Math.max(0, endedAt - startedAt),
    status: entry.status,
    error: entry.error,
    retry: entry.retry,
  };
  if (record.attempts) record.attempts.push(logged);
  else record.attempts = [logged];
}

/** The end of a relayed stream, its last two chunks as received. */
export function noteStreamTail(record: RequestRecord | undefined, previous: Buffer | undefined, last: Buffer | undefined): void {
  if (!record || !last) return;
  const text = streamTailText(previous, last)!;
  // the usage now (the limits settle from it when the attempt ends); the rest when the row is built
  record.usage = usageInText(text) ?? record.usage;
  // the two chunks by reference too: a Responses stream's last event carries the whole Response, often past the tail
  record.laterFacts = { kind: 'stream-tail', text, previous, last, final: record.finalEvent?.reads() };
}

/** A cached answer being served: its text, for its finish reasons when the row is built. */
export function noteCachedAnswer(record: RequestRecord | undefined, text: string): void {
  if (record) record.laterFacts = { kind: 'cached', text };
}

/**
 * What the row reads after the answer has gone, for the spans: the finish reasons and model still unknown, from a
 * relayed stream's tail (the chunks that finished a choice: every chunk names the model) or a cached answer's JSON.
 */
export function answerFacts(record: RequestRecord): void {
  const later = record.laterFacts;
  if (!later || (record.finishReasons !== undefined && record.answerModel !== undefined)) return;
  if (later.kind === 'cached') {
    record.finishReasons ??= finishReasonsInJson(later.text);
    return;
  }
  // many choices: each finished where it did, not all in the tail; the stream's bytes were kept for them (for the
  // finish reasons alone, or for a body that `x-gateway-debug: false` then kept out of the row)
  const kept = record.manyChoices ? (record.streamBytes ?? (record.response?.kind === 'bytes' ? record.response : undefined)) : undefined;
  const folded = kept?.fold ? kept.fold.answer(kept.buffers) : undefined;
  if (folded) {
    record.finishReasons ??= finishReasonsOf(folded);
    record.answerModel ??= stringField(folded, 'model');
  } else {
    const finished = finishedEvents(kept ? Buffer.concat(kept.buffers, kept.size).toString('utf8') + '\n' + later.text : later.text);
    record.finishReasons ??= finishReasonsOfChunks(finished);
    for (const event of finished) record.answerModel ??= stringField(event, 'model');
  }
  if (record.finishReasons !== undefined) return;
  // a Responses stream: its last event, read from the two last chunks when the tail cut its line
  const response = responseAtEnd(later);
  if (!response) return;
  record.finishReasons = responseFinishReasons(response);
  record.answerModel ??= stringField(response, 'model');
}

export function noteStreamed(record: RequestRecord | undefined, headers?: Record<string, string | string[]>): void {
  if (!record) return;
  record.streamed = true;
  record.streamHeaders = headers;
}

export function noteOutputVerdicts(record: RequestRecord | undefined, results: readonly HookResult[]): void {
  if (record && results.length > 0) record.outputVerdicts = results;
}

function verdicts(value: unknown): readonly HookResult[] | undefined {
  return Array.isArray(value) && value.length > 0 ? (value as HookResult[]) : undefined;
}

/**
 * An error body as the client got it (`{error: {message, type, code}}`, plus `hook_results` for a guardrail
 * denial). The first error noted wins: later ones are consequences (a stream's error event, then its close).
 */
export function noteErrorBody(record: RequestRecord | undefined, body: unknown): void {
  if (!record || record.error || typeof body !== 'object' || body === null) return;
  const inner = (body as { error?: unknown }).error;
  const message = stringField(inner, 'message');
  if (message === undefined) return;
  record.error = { message, type: stringField(inner, 'type') ?? null, code: stringField(inner, 'code') ?? null };
  const hooks = (body as { hook_results?: unknown }).hook_results;
  if (typeof hooks === 'object' && hooks !== null) {
    const { before_request_hooks: before, after_request_hooks: after } = hooks as Record<string, unknown>;
    record.inputVerdicts ??= verdicts(before);
    record.outputVerdicts ??= verdicts(after);
  }
}

/** An attempt that answered with `usage` and was not chosen: its cost joins the request's. */
export function noteEarlierAttemptCost(record: RequestRecord | undefined, cost: bigint | null): void {
  if (!record) return;
  const sum = record.earlierAttemptsCost;
  record.earlierAttemptsCost = sum === null || cost === null ? null : (sum ?? 0n) + cost;
}

export interface RecordCost {
  /** picodollars paid for the request; null when not known */
  cost: bigint | null;
  /** picodollars a cache hit saved (the price of the answer it replayed); null when not a hit or not known */
  saved: bigint | null;
}

/**
 * What the request cost, once its answer has ended (usage x price, plus the attempts that answered before it). A
 * cache hit costs nothing and saves its answer's price. A 2xx answer without usage (a stream without
 * include_usage) makes the cost unknown: something was paid, nobody said how much. An error answer adds nothing.
 */
export function recordCost(record: RequestRecord, answered: boolean): RecordCost {
  let chosen: bigint | null | undefined;
  let saved: bigint | null = null;
  const priced = record.usage && record.price ? costOfUsage(record.usage, record.price) : null;
  if (record.servedFromCache) {
    chosen = 0n;
    saved = priced;
  } else if (record.usage) {
    chosen = priced;
  } else {
    chosen = answered ? null : undefined;
  }
  const earlier = record.earlierAttemptsCost;
  if (chosen === undefined && earlier === undefined) return { cost: null, saved };
  if (chosen === null || earlier === null) return { cost: null, saved };
  return { cost: (chosen ?? 0n) + (earlier ?? 0n), saved };
}
