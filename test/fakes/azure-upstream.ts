/**
 * A fake Azure upstream on 127.0.0.1 for both Azure adapters. It CHECKS what it receives and answers in Azure's
 * documented shapes (content-filter annotations, the choice-less first stream chunk, Cohere v2 rerank), so a wrong
 * path, a missing api-version or a wrong credential header fails the test with an Azure-style error:
 *   Azure OpenAI   POST /openai/deployments/{deployment}/{chat/completions|completions|embeddings}?api-version=...
 *                  POST /openai/v1/chat/completions (no api-version)
 *   Foundry        POST /models/{chat/completions|embeddings}?api-version=2024-05-01-preview, with extra-parameters
 *                  POST /providers/cohere/v2/rerank (documents as strings, model without vendor prefix)
 * Credentials: exactly one of `api-key: <key>` or `Authorization: Bearer <token>`; a bearer `refusesToken` names is
 * refused with Azure's 401 for a token that is invalid or has expired (revoked before it expired).
 * Behaviour by deployment (or model) name: `no-model` answers without a model; `filtered` answers the content-filter
 * 400; a streamed request with `tools` replays the recorded tool-call stream in the azure-openai fixtures.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventData } from '../helpers/provider-cases.ts';
import { fixtureCase } from '../helpers/provider-fixtures.ts';

// the stream and error the fake replays are the adapter's own fixture cases (one format, one loader)
const toolStream = fixtureCase('azure-openai/chat-stream.json', 'stream: parallel tool calls with filter annotations').upstreamResponse;
const TOOL_STREAM: string[] = (toolStream?.events ?? []).map(eventData);
const filtered = fixtureCase('azure-openai/content-filter-error.json', 'error: content_filter passes as Azure wrote it').upstreamResponse;
const CONTENT_FILTER = { status: filtered?.status ?? 400, providerError: filtered?.body };

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export interface FakeAzure {
  origin: string;
  requests: RecordedRequest[];
  /** the Entra access tokens refused with a 401; none unless a test sets it */
  refusesToken: (token: string) => boolean;
  last(): RecordedRequest;
  close(): Promise<void>;
}

const SAFE = { filtered: false, severity: 'safe' };
const PROMPT_FILTERS = [{ prompt_index: 0, content_filter_results: { hate: SAFE, jailbreak: { filtered: false, detected: false }, self_harm: SAFE, sexual: SAFE, violence: SAFE } }];
const CHOICE_FILTERS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const MODEL = 'gpt-4o-2024-08-06';

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-remaining-tokens': '449000', 'apim-request-id': 'apim-fake' });
  res.end(text);
}

function azureError(res: http.ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { error: { code, message } });
}

/** null when the credentials are right, else the reason */
function credentialProblem(headers: http.IncomingHttpHeaders): string | null {
  const key = headers['api-key'];
  const bearer = /^Bearer \S+$/.test(headers.authorization ?? '');
  if (key && headers.authorization) return 'send either api-key or Authorization, not both';
  if (!key && !bearer) return 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
  return null;
}

function chatAnswer(model: string | undefined): Record<string, unknown> {
  return {
    choices: [{ content_filter_results: CHOICE_FILTERS, finish_reason: 'stop', index: 0, logprobs: null, message: { content: 'Hello from Azure', refusal: null, role: 'assistant' } }],
    created: 1_729_000_000,
    id: 'chatcmpl-azure',
    ...(model ? { model } : {}),
    object: 'chat.completion',
    prompt_filter_results: PROMPT_FILTERS,
    system_fingerprint: 'fp_azure',
    usage: { completion_tokens: 4, completion_tokens_details: { reasoning_tokens: 0 }, prompt_tokens: 1100, prompt_tokens_details: { cached_tokens: 1024 }, total_tokens: 1104 },
  };
}

function streamChat(res: http.ServerResponse, body: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  if (Array.isArray(body.tools)) {
    for (const data of TOOL_STREAM) {
      if (!includeUsage && data !== '[DONE]' && 'usage' in JSON.parse(data)) continue;
      res.write(`data: ${data}\n\n`);
    }
    res.end();
    return;
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ content_filter_results: {}, delta, finish_reason: finish, index: 0, logprobs: null }], created: 1_729_000_001, id: 'chatcmpl-s', model: MODEL, object: 'chat.completion.chunk', system_fingerprint: 'fp_azure' })}\n\n`;
  res.write(`data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTERS })}\n\n`);
  res.write(chunk({ content: '', refusal: null, role: 'assistant' }));
  res.write(chunk({ content: 'Hello' }));
  res.write(chunk({ content: ' Azure' }));
  res.write(chunk({}, 'stop'));
  if (includeUsage) {
    res.write(`data: ${JSON.stringify({ choices: [], created: 1_729_000_001, id: 'chatcmpl-s', model: MODEL, object: 'chat.completion.chunk', usage: { completion_tokens: 2, prompt_tokens: 9, total_tokens: 11 } })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

function embeddings(res: http.ServerResponse, body: Record<string, unknown>): void {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  send(res, 200, {
    object: 'list',
    model: 'text-embedding-3-small',
    data: inputs.map((_input, index) => {
      const vector = [0.5, -0.25, index];
      // encoding_format base64 (what the openai client asks for by default): little-endian float32 bytes
      const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    }),
    usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 },
  });
}

function handleAzureOpenAi(res: http.ServerResponse, name: string, operation: string, body: Record<string, unknown>): void {
  if (name === 'filtered') return send(res, CONTENT_FILTER.status, CONTENT_FILTER.providerError);
  if (operation === 'chat/completions') {
    if (body.stream === true) return streamChat(res, body);
    return send(res, 200, chatAnswer(name === 'no-model' ? undefined : MODEL));
  }
  if (operation === 'completions') {
    return send(res, 200, { choices: [{ content_filter_results: CHOICE_FILTERS, finish_reason: 'stop', index: 0, logprobs: null, text: 'Hello text' }], created: 1, id: 'cmpl-azure', model: 'gpt-35-turbo-instruct', object: 'text_completion', prompt_filter_results: PROMPT_FILTERS, usage: { completion_tokens: 2, prompt_tokens: 3, total_tokens: 5 } });
  }
  return embeddings(res, body);
}

function rerank(res: http.ServerResponse, body: Record<string, unknown>): void {
  const documents = body.documents;
  if (typeof body.model !== 'string' || body.model.includes('cohere.')) return send(res, 400, { message: `invalid request: unknown model "${String(body.model)}"` });
  if (!Array.isArray(documents) || !documents.every((document) => typeof document === 'string')) {
    return send(res, 400, { message: 'invalid request: documents must be a list of strings' });
  }
  // Cohere answers sorted by relevance; this fake deliberately does not, so the gateway's sort is tested
  send(res, 200, {
    id: 'rerank-fake',
    results: documents.map((_document, index) => ({ index, relevance_score: (index + 1) / (documents.length + 1) })).slice(0, Number(body.top_n ?? documents.length)),
    meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
  });
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, request: RecordedRequest, refusesToken: (token: string) => boolean): void {
  const problem = credentialProblem(req.headers);
  if (problem) return azureError(res, 401, '401', problem);
  const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer && refusesToken(bearer)) {
    return azureError(res, 401, '401', 'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.');
  }
  const { path, query, json } = request;
  const deployment = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings)$/.exec(path);
  if (deployment) {
    if (!query.get('api-version')) return azureError(res, 404, '404', 'Resource not found');
    return handleAzureOpenAi(res, decodeURIComponent(deployment[1]!), deployment[2]!, json);
  }
  if (path === '/openai/v1/chat/completions') {
    if (query.has('api-version')) return azureError(res, 400, 'BadRequest', 'api-version is not allowed on the v1 API');
    return handleAzureOpenAi(res, String(json.model), 'chat/completions', json);
  }
  if (path === '/models/chat/completions' || path === '/models/embeddings') {
    if (query.get('api-version') !== '2024-05-01-preview') return azureError(res, 400, 'BadRequest', 'Missing or unknown api-version');
    if (!req.headers['extra-parameters']) return send(res, 422, { error: { code: 'Invalid input', status: 422, message: 'Extra parameters are not allowed when extra-parameters is not set' } });
    if (path === '/models/embeddings') return embeddings(res, json);
    if (json.stream === true) return streamChat(res, json);
    return send(res, 200, chatAnswer(String(json.model)));
  }
  if (path === '/providers/cohere/v2/rerank') return rerank(res, json);
  azureError(res, 404, '404', `Resource not found: ${req.method} ${path}`);
}

export async function startFakeAzure(): Promise<FakeAzure> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = Buffer.concat(parts).toString('utf8');
      let json: Record<string, unknown> = {};
      try {
        const parsed: unknown = body ? JSON.parse(body) : {};
        if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>;
      } catch {
        json = {};
      }
      const request = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, json };
      requests.push(request);
      handle(req, res, request, fake.refusesToken);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeAzure = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    refusesToken: () => false,
    last() {
      const last = requests.at(-1);
      if (!last) throw new Error('the fake Azure upstream received no request');
      return last;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
