/**
 * A fake Vertex AI on 127.0.0.1 (service root `/v1`) that checks what it receives and answers in the documented
 * formats:
 *   .../publishers/google/models/{m}:generateContent | :streamGenerateContent?alt=sse   Gemini (../google-upstream.ts)
 *   .../publishers/google/models/{m}:predict                                             text embeddings
 *   .../publishers/anthropic/models/{m}:rawPredict | :streamRawPredict                   Claude (Messages API)
 *   .../publishers/anthropic/models/count-tokens:rawPredict                              Claude token counting
 *   /v1/projects/{p}/locations/global/rankingConfigs/default_ranking_config:rank          ranking API
 * Every call needs `Authorization: Bearer <token>` with a token `acceptToken` approves (Google answers 401
 * UNAUTHENTICATED otherwise), the project and region the test uses, and no API key header.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens
 * https://cloud.google.com/generative-ai-app-builder/docs/reference/rest/v1/projects.locations.rankingConfigs/rank
 */
import type http from 'node:http';
import { generate, googleError, send, startServer, type FakeServer } from './google-upstream.ts';

export const PROJECT = 'test-project';
export const REGION = 'us-central1';

type Json = Record<string, any>;

function claude(res: http.ServerResponse, model: string, body: Json, stream: boolean): void {
  if (body.anthropic_version !== 'vertex-2023-10-16' || 'model' in body || !Array.isArray(body.messages) || typeof body.max_tokens !== 'number') {
    return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'fake upstream: not a Vertex Claude body' } });
  }
  if (stream !== (body.stream === true)) return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'fake upstream: stream flag and method disagree' } });
  const usage = { input_tokens: 25, output_tokens: 12, cache_read_input_tokens: 5 };
  // asked to think: a thinking block with its signature first (Messages API callers see it; chat callers get content_blocks)
  const thinking = body.thinking ? [{ type: 'thinking', thinking: 'Vertex thinks.', signature: 'ErUBCkYIBxgCIkD/vertex+sig==' }] : [];
  if (!stream) {
    return send(res, 200, {
      id: 'msg_vrtx_01', type: 'message', role: 'assistant', model,
      content: [...thinking, { type: 'text', text: 'Hello from Claude on Vertex' }],
      stop_reason: 'end_turn', stop_sequence: null, usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { id: 'msg_vrtx_02', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, output_tokens: 1 } } });
  const first = thinking.length;
  for (const block of thinking) {
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: block.thinking } });
    event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: block.signature } });
    event('content_block_stop', { index: 0 });
  }
  event('content_block_start', { index: first, content_block: { type: 'text', text: '' } });
  event('content_block_delta', { index: first, delta: { type: 'text_delta', text: 'Checking.' } });
  event('content_block_stop', { index: first });
  event('content_block_start', { index: first + 1, content_block: { type: 'tool_use', id: 'toolu_vrtx_01', name: 'get_weather', input: {} } });
  event('content_block_delta', { index: first + 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Pa' } });
  event('content_block_delta', { index: first + 1, delta: { type: 'input_json_delta', partial_json: 'ris"}' } });
  event('content_block_stop', { index: first + 1 });
  event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } });
  event('message_stop', {});
  res.end();
}

/** The fake's token count: derived from what was sent (the prompt's size), so no fixed number can pass a test. */
export function vertexTokenCount(body: Json): number {
  return Math.ceil(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]).length / 4);
}

/** count-tokens: the Messages body with the Vertex version and, unlike rawPredict, the model (no URL names it). */
function countTokens(res: http.ServerResponse, body: Json): void {
  if (body.anthropic_version !== 'vertex-2023-10-16' || typeof body.model !== 'string' || !body.model.startsWith('claude-') || !Array.isArray(body.messages) || 'stream' in body) {
    return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'fake upstream: not a Vertex Claude count-tokens body' } });
  }
  send(res, 200, { input_tokens: vertexTokenCount(body) });
}

function predict(res: http.ServerResponse, body: Json): void {
  const instances: Json[] = Array.isArray(body.instances) ? body.instances : [];
  if (instances.length === 0 || instances.some((item) => typeof item.content !== 'string')) {
    return googleError(res, 400, 'INVALID_ARGUMENT', 'fake upstream: instances[].content is required');
  }
  const dimensions: number = body.parameters?.outputDimensionality ?? 3;
  send(res, 200, {
    predictions: instances.map((item, index) => ({
      embeddings: { statistics: { truncated: false, token_count: item.content.length }, values: Array.from({ length: dimensions }, (_v, at) => index + at / 4) },
    })),
    metadata: { billableCharacterCount: instances.reduce((sum, item) => sum + item.content.length, 0) },
  });
}

function rank(res: http.ServerResponse, body: Json): void {
  const records: Json[] = Array.isArray(body.records) ? body.records : [];
  if (typeof body.query !== 'string' || records.length === 0 || records.some((record, index) => record.id !== String(index) || typeof record.content !== 'string')) {
    return googleError(res, 400, 'INVALID_ARGUMENT', 'fake upstream: bad rank request');
  }
  // scores by content length, answered unsorted on purpose
  const scored: Json[] = records.map((record) => ({ ...record, score: Math.min(0.99, record.content.length / 100) }));
  const kept = typeof body.topN === 'number' ? [...scored].sort((a, b) => b.score - a.score).slice(0, body.topN) : scored;
  send(res, 200, {
    records: kept.reverse().map((record) => (body.ignoreRecordDetailsInResponse ? { id: record.id, score: record.score } : record)),
  });
}

export function startFakeVertexUpstream(options: { acceptToken: (token: string) => boolean }): Promise<FakeServer> {
  return startServer((req, res, json) => {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!token || !options.acceptToken(token) || req.headers['x-goog-api-key'] !== undefined) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const location = `/v1/projects/${PROJECT}/locations/${REGION}`;
    const model = new RegExp(`^${location}/publishers/(google|anthropic)/models/([^/:]+):(\\w+)$`).exec(url.pathname);
    if (req.method === 'POST' && model) {
      const [, publisher, name, method] = model as unknown as [string, string, string, string];
      const sse = url.searchParams.get('alt') === 'sse';
      if (publisher === 'google' && method === 'generateContent') return generate(res, name, json, false);
      if (publisher === 'google' && method === 'streamGenerateContent' && sse) return generate(res, name, json, true);
      if (publisher === 'google' && method === 'predict') return predict(res, json);
      if (publisher === 'anthropic' && name === 'count-tokens' && method === 'rawPredict') return countTokens(res, json);
      if (publisher === 'anthropic' && (method === 'rawPredict' || method === 'streamRawPredict')) return claude(res, name, json, method === 'streamRawPredict');
    }
    if (req.method === 'POST' && url.pathname === `/v1/projects/${PROJECT}/locations/global/rankingConfigs/default_ranking_config:rank`) return rank(res, json);
    googleError(res, 404, 'NOT_FOUND', `fake upstream: no route ${req.method} ${req.url}`);
  });
}
