/**
 * A fake AWS Bedrock on 127.0.0.1: the runtime (Converse, ConverseStream as binary AWS event-stream, InvokeModel for
 * Titan and Cohere embeddings) and the agent runtime (Rerank), answering in Bedrock's documented shapes.
 * Every request must carry a valid SigV4 signature: the fake checks the Authorization header's shape and
 * recomputes the signature with the same secret (SignatureV4 over the path, query, signed headers and the exact
 * body bytes received); a bad signature is answered 403 as AWS does. Behaviour is chosen by the model id:
 *   error-429           answers 429 {"message": ...}
 *   stream-exception    streams messageStart, one text delta, then a throttlingException event
 *   ...tools...         (non-stream) answers with two parallel toolUse blocks
 * Claude through InvokeModel / InvokeModelWithResponseStream (`anthropic.claude-...` ids, inference profiles too):
 * the Messages body with `anthropic_version: bedrock-2023-05-31` and neither `model` nor `stream`; answers a Message
 * (a thinking block with its signature first when the body asks for thinking), streamed as `chunk` events whose
 * payload is `{"bytes": "<base64 of one Messages event>"}`.
 * CountTokens (`/model/{id}/count-tokens`) for Claude: `{"input": {"invokeModel": {"body": "<base64>"}}}` whose
 * decoded body InvokeModel would accept; a foundation-model id only (an inference profile is refused, as Bedrock
 * does); answers `{"inputTokens": n}`, n derived from the decoded body.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

export interface BedrockRecordedRequest {
  method: string;
  /** the raw request target, percent-encoding as received */
  url: string;
  headers: http.IncomingHttpHeaders;
  json: unknown;
  /** access key id, region and service from the credential scope, when the signature was valid */
  signedBy: { accessKeyId: string; region: string; signedHeaders: string[] } | undefined;
}

export interface FakeBedrock {
  /** the base URL to send as x-gateway-custom-host */
  baseUrl: string;
  requests: BedrockRecordedRequest[];
  close(): Promise<void>;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;
const codec = new EventStreamCodec(toUtf8, fromUtf8);

function header(req: http.IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** who signed (key, region, signed headers) when the signature is valid, else the reason it is not */
async function checkSignature(req: http.IncomingMessage, body: Buffer, secrets: Record<string, string>): Promise<{ error: string } | BedrockRecordedRequest['signedBy']> {
  const match = AUTHORIZATION.exec(header(req, 'authorization'));
  if (!match) return { error: `malformed authorization header: ${header(req, 'authorization')}` };
  const [, accessKeyId = '', day, region = '', list = '', signature] = match;
  const signedHeaders = list.split(';');
  for (const required of ['host', 'x-amz-date']) if (!signedHeaders.includes(required)) return { error: `${required} is not signed` };
  const amzDate = header(req, 'x-amz-date');
  if (!amzDate.startsWith(day ?? '-')) return { error: 'x-amz-date does not match the credential scope' };
  const secretAccessKey = secrets[accessKeyId];
  if (!secretAccessKey) return { error: `unknown access key ${accessKeyId}` };
  const sessionToken = header(req, 'x-amz-security-token') || undefined;
  const url = new URL(req.url ?? '/', 'http://fake');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = header(req, name);
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey, sessionToken }, region, service: 'bedrock', sha256: Sha256 });
  const iso = amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  const signed = await signer.sign(
    { method: req.method ?? 'POST', protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, query, headers, body },
    { signingDate: new Date(iso) },
  );
  const expected = String(signed.headers.authorization ?? '');
  if (!expected.endsWith(`Signature=${signature}`)) return { error: 'The request signature we calculated does not match the signature you provided.' };
  return { accessKeyId, region, signedHeaders };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request-id', ...headers });
  res.end(text);
}

function eventMessage(type: string, payload: unknown, messageType: 'event' | 'exception' = 'event'): Uint8Array {
  const name = messageType === 'event' ? ':event-type' : ':exception-type';
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: messageType },
      [name]: { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

const USAGE = { inputTokens: 20, outputTokens: 45, totalTokens: 1565, cacheReadInputTokens: 1500 };

async function converseStream(res: http.ServerResponse, modelId: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
  const events: Uint8Array[] = [
    eventMessage('messageStart', { role: 'assistant', p: 'abcd' }),
    eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Checking ' }, p: 'ab' }),
  ];
  if (modelId === 'stream-exception') {
    events.push(eventMessage('throttlingException', { message: 'Too many tokens, please wait before trying again.' }, 'exception'));
  } else {
    events.push(
      eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'both cities.' } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: ' "Paris"}' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 1 }),
      eventMessage('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_rome', name: 'get_weather' } } }),
      eventMessage('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city": "Rome"}' } } }),
      eventMessage('contentBlockStop', { contentBlockIndex: 2 }),
      eventMessage('messageStop', { stopReason: 'tool_use' }),
      eventMessage('metadata', { usage: USAGE, metrics: { latencyMs: 321 } }),
    );
  }
  // network chunks split messages anywhere: send the whole stream cut into uneven pieces
  const bytes = Buffer.concat(events);
  for (let offset = 0; offset < bytes.length; offset += 37) {
    res.write(bytes.subarray(offset, offset + 37));
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}

function converse(res: http.ServerResponse, modelId: string): void {
  const content: unknown[] = [{ text: 'Paris is sunny.' }];
  if (modelId.includes('tools')) {
    content.push(
      { toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } } },
      { toolUse: { toolUseId: 'tooluse_rome', name: 'get_weather', input: { city: 'Rome' } } },
    );
  }
  send(res, 200, {
    output: { message: { role: 'assistant', content } },
    stopReason: modelId.includes('tools') ? 'tool_use' : 'end_turn',
    usage: { inputTokens: 20, outputTokens: 10, totalTokens: 1830, cacheReadInputTokens: 1500, cacheWriteInputTokens: 300 },
    metrics: { latencyMs: 100 },
  });
}

function invoke(res: http.ServerResponse, modelId: string, body: Record<string, unknown>): void {
  if (modelId.startsWith('amazon.titan-embed')) {
    if (typeof body.inputText !== 'string') return send(res, 400, { message: 'Malformed input request: inputText is required' });
    return send(res, 200, { embedding: [0.5, -0.25, 0.125], inputTextTokenCount: 4, embeddingsByType: { float: [0.5, -0.25, 0.125] } });
  }
  if (modelId.startsWith('cohere.embed')) {
    const texts = Array.isArray(body.texts) ? body.texts : undefined;
    if (!texts || typeof body.input_type !== 'string') return send(res, 400, { message: 'Malformed input request: texts and input_type are required' });
    return send(res, 200, { id: 'emb-1', texts, embeddings: texts.map((_text, index) => [index, 0.5]), response_type: 'embeddings_floats' });
  }
  send(res, 404, { message: `Model ${modelId} not found` });
}

const CLAUDE_USAGE = { input_tokens: 18, cache_read_input_tokens: 40, output_tokens: 9 };

function claudeContent(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const thinking = body.thinking ? [{ type: 'thinking', thinking: 'Bedrock thinks.', signature: 'EqQBCkYIBxgCKkB+/bedrock==' }] : [];
  return [...thinking, { type: 'text', text: 'Hello from Claude on Bedrock' }];
}

function claudeProblem(body: Record<string, unknown>): string | undefined {
  if (body.anthropic_version !== 'bedrock-2023-05-31') return 'Malformed input request: anthropic_version must be bedrock-2023-05-31';
  for (const key of ['model', 'stream']) if (key in body) return `Malformed input request: extraneous key [${key}] is not permitted`;
  if (!Array.isArray(body.messages) || typeof body.max_tokens !== 'number') return 'Malformed input request: messages and max_tokens are required';
  return undefined;
}

function invokeClaude(res: http.ServerResponse, modelId: string, body: Record<string, unknown>): void {
  const problem = claudeProblem(body);
  if (problem) return send(res, 400, { message: problem });
  send(res, 200, { id: 'msg_bdrk_01', type: 'message', role: 'assistant', model: modelId, content: claudeContent(body), stop_reason: 'end_turn', stop_sequence: null, usage: CLAUDE_USAGE });
}

async function invokeClaudeStream(res: http.ServerResponse, modelId: string, body: Record<string, unknown>): Promise<void> {
  const problem = claudeProblem(body);
  if (problem) return send(res, 400, { message: problem });
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
  const chunk = (event: Record<string, unknown>) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') });
  const events: Uint8Array[] = [
    chunk({ type: 'message_start', message: { id: 'msg_bdrk_02', type: 'message', role: 'assistant', model: modelId, content: [], stop_reason: null, stop_sequence: null, usage: { ...CLAUDE_USAGE, output_tokens: 1 } } }),
  ];
  claudeContent(body).forEach((block, index) => {
    const empty = block.type === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'text', text: '' };
    events.push(chunk({ type: 'content_block_start', index, content_block: empty }));
    if (block.type === 'thinking') {
      events.push(chunk({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }));
      events.push(chunk({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else {
      for (const text of ['Hello from ', 'Claude on Bedrock']) events.push(chunk({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    }
    events.push(chunk({ type: 'content_block_stop', index }));
  });
  events.push(chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }));
  events.push(chunk({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 18, outputTokenCount: 9 } }));
  const bytes = Buffer.concat(events);
  for (let offset = 0; offset < bytes.length; offset += 53) {
    res.write(bytes.subarray(offset, offset + 53));
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}

/** The fake's token count: derived from what was sent (the prompt's size), so no fixed number can pass a test. */
export function bedrockTokenCount(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]).length / 4);
}

/** The InvokeModel body a CountTokens request carries, decoded; undefined when the request is not that shape. */
export function countedInvokeBody(json: unknown): Record<string, unknown> | undefined {
  const outer = json as { input?: { invokeModel?: { body?: unknown } } } | undefined;
  const encoded = outer?.input?.invokeModel?.body;
  if (typeof encoded !== 'string' || Object.keys(outer ?? {}).length !== 1 || Object.keys(outer!.input!).length !== 1) return undefined;
  try {
    const inner: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function countTokens(res: http.ServerResponse, modelId: string, json: unknown): void {
  if (!/^anthropic\.claude-/.test(modelId)) return send(res, 400, { message: "The provided model doesn't support counting tokens." });
  const inner = countedInvokeBody(json);
  if (!inner) return send(res, 400, { message: 'Malformed input request: input.invokeModel.body must be a base64-encoded JSON object' });
  const problem = claudeProblem(inner);
  if (problem) return send(res, 400, { message: problem });
  send(res, 200, { inputTokens: bedrockTokenCount(inner) });
}

function rerank(res: http.ServerResponse, body: Record<string, unknown>): void {
  const sources = Array.isArray(body.sources) ? (body.sources as Array<{ inlineDocumentSource?: { textDocument?: { text?: string } } }>) : [];
  const config = (body.rerankingConfiguration as { bedrockRerankingConfiguration?: { numberOfResults?: number } } | undefined)?.bedrockRerankingConfiguration;
  // Bedrock answers best first; the fake scores by position so the last document wins
  const results = sources
    .map((source, index) => ({ index, relevanceScore: (index + 1) / 10, document: { type: 'TEXT', textDocument: { text: source.inlineDocumentSource?.textDocument?.text } } }))
    .reverse()
    .slice(0, config?.numberOfResults ?? sources.length);
  send(res, 200, { results });
}

export async function startFakeBedrock(secrets: Record<string, string>): Promise<FakeBedrock> {
  const requests: BedrockRecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(parts);
        let json: unknown;
        try {
          json = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          json = undefined;
        }
        const check = await checkSignature(req, raw, secrets);
        const signedBy = check && 'error' in check ? undefined : check;
        requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json, signedBy });
        if (check && 'error' in check) return send(res, 403, { message: check.error });
        const body = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
        const path = new URL(req.url ?? '/', 'http://fake').pathname;
        const model = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/.exec(path);
        if (req.method === 'POST' && path === '/rerank') return rerank(res, body);
        if (req.method !== 'POST' || !model) return send(res, 404, { message: `Unknown operation ${req.method} ${path}` });
        const modelId = decodeURIComponent(model[1]!);
        if (modelId === 'error-429') return send(res, 429, { message: 'Too many requests, please wait before trying again.' });
        if (model[2] === 'count-tokens') return countTokens(res, modelId, json);
        const claude = /(^|[.:/])anthropic\.claude-/.test(modelId);
        if (claude && model[2] === 'invoke') return invokeClaude(res, modelId, body);
        if (claude && model[2] === 'invoke-with-response-stream') return invokeClaudeStream(res, modelId, body);
        if (model[2] === 'invoke') return invoke(res, modelId, body);
        if (!Array.isArray(body.messages)) return send(res, 400, { message: 'Malformed input request: messages is required' });
        if (model[2] === 'converse-stream') return converseStream(res, modelId);
        return converse(res, modelId);
      })().catch(() => res.destroy());
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
