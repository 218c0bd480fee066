/**
 * A fake Gemini API (Generative Language API) on 127.0.0.1 that checks what it receives and answers in Google's
 * documented format (https://ai.google.dev/api/generate-content, https://ai.google.dev/api/embeddings).
 * It refuses, with a Google error naming the problem, a request without the expected `x-goog-api-key`, a body
 * that is not a GenerateContentRequest (OpenAI fields, empty parts, unknown roles), and a function response turn
 * whose model turn lost the thought signature (as Gemini 3 does). Behaviour by model name:
 *   error-429      answers 429 RESOURCE_EXHAUSTED
 *   garbage        answers 200 with a body that is not JSON
 *   stream-error   streams one text event, then an error event
 * The Gemini answer logic is exported for the Vertex AI fake, which serves the same bodies under its own paths.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const GOOGLE_API_KEY = 'AIza-test-key';
export const SIGNATURE = 'c2lnLXdlYXRoZXItMQ==';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: unknown;
}

export interface FakeServer {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Json = Record<string, any>;

export function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function googleError(res: http.ServerResponse, code: number, status: string, message: string): void {
  send(res, code, { error: { code, message, status } });
}

const GENERATION_CONFIG_KEYS = new Set([
  'maxOutputTokens', 'temperature', 'topP', 'stopSequences', 'candidateCount', 'seed', 'presencePenalty',
  'frequencyPenalty', 'responseMimeType', 'responseSchema', 'thinkingConfig',
]);

/** What a real Gemini endpoint would reject, or undefined when the body is a valid GenerateContentRequest. */
function bodyProblem(body: Json): string | undefined {
  for (const key of ['model', 'messages', 'max_tokens', 'stream', 'tools_choice']) if (key in body) return `unknown field "${key}"`;
  if (!Array.isArray(body.contents) || body.contents.length === 0) return 'contents is required';
  for (const content of body.contents) {
    if (content.role !== 'user' && content.role !== 'model') return `bad role ${content.role}`;
    if (!Array.isArray(content.parts) || content.parts.length === 0) return 'contents.parts must not be empty';
  }
  for (const key of Object.keys(body.generationConfig ?? {})) if (!GENERATION_CONFIG_KEYS.has(key)) return `unknown generationConfig.${key}`;
  for (const declaration of body.tools?.[0]?.functionDeclarations ?? []) {
    if (JSON.stringify(declaration).includes('additionalProperties')) return 'additionalProperties is not supported';
  }
  return undefined;
}

const USAGE = { promptTokenCount: 11, candidatesTokenCount: 6, totalTokenCount: 17, cachedContentTokenCount: 4 };

function part(text: string) {
  return { text };
}

/** The model's next turn, as Gemini parts, with a finish reason; or a problem to answer 400 with. */
function nextTurn(body: Json): { parts: Json[]; thoughts: Json[]; problem?: string } {
  const last = body.contents.at(-1);
  const responses = last.parts.filter((item: Json) => item.functionResponse);
  const thoughts = body.generationConfig?.thinkingConfig?.includeThoughts ? [{ text: 'Thinking about the weather.', thought: true }] : [];
  if (responses.length > 0) {
    const calls = body.contents.at(-2)?.parts?.filter((item: Json) => item.functionCall) ?? [];
    if (calls[0]?.thoughtSignature !== SIGNATURE) {
      return { parts: [], thoughts, problem: 'Function call is missing a thought_signature in functionCall parts.' };
    }
    if (responses.length !== calls.length) return { parts: [], thoughts, problem: 'function response parts must match the function call parts' };
    const temperature = responses[0].functionResponse.response.temperature;
    return { parts: [part(`It is ${temperature} C in Paris.`)], thoughts };
  }
  if (body.tools) {
    return {
      parts: [
        part('Let me check.'),
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE },
        { functionCall: { name: 'get_weather', args: { city: 'London' } } },
      ],
      thoughts,
    };
  }
  return { parts: [part('Hello from Gemini')], thoughts };
}

export function generate(res: http.ServerResponse, model: string, body: Json, stream: boolean, modelVersion = model): void {
  if (model === 'error-429') return googleError(res, 429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).');
  if (model === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>not json</html>');
    return;
  }
  const problem = bodyProblem(body);
  if (problem) return googleError(res, 400, 'INVALID_ARGUMENT', `fake upstream: ${problem}`);
  const turn = nextTurn(body);
  if (turn.problem) return googleError(res, 400, 'INVALID_ARGUMENT', turn.problem);
  const envelope = (parts: Json[], extra: Json = {}) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    usageMetadata: USAGE,
    modelVersion,
    responseId: 'fake-response-1',
  });
  if (!stream) return send(res, 200, envelope([...turn.thoughts, ...turn.parts], { finishReason: 'STOP' }));
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\r\n\r\n`);
  if (turn.thoughts.length > 0) event(envelope(turn.thoughts));
  if (model === 'stream-error') {
    event(envelope([part('Hel')]));
    event({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
    res.end();
    return;
  }
  const [first, ...rest] = turn.parts;
  const firstText = String(first?.text ?? '');
  event(envelope([part(firstText.slice(0, 3))]));
  event(envelope([part(firstText.slice(3)), ...rest], { finishReason: 'STOP' }));
  res.end();
}

export function embeddingValues(index: number): number[] {
  return [index + 0.5, 0.25, -1];
}

/** Starts a recording server; `handle` answers each request with its parsed JSON body. */
export async function startServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, json: Json) => void): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let json: Json = {};
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json });
      handle(req, res, json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The Gemini API under /v1beta: generateContent, streamGenerateContent?alt=sse, batchEmbedContents. */
export function startFakeGoogleUpstream(): Promise<FakeServer> {
  return startServer((req, res, json) => {
    if (req.headers['x-goog-api-key'] !== GOOGLE_API_KEY) {
      return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents)$/.exec(url.pathname);
    if (req.method !== 'POST' || !match) return googleError(res, 404, 'NOT_FOUND', `fake upstream: no route ${req.method} ${req.url}`);
    const [, model, method] = match as unknown as [string, string, string];
    if (method === 'streamGenerateContent' && url.searchParams.get('alt') !== 'sse') {
      return googleError(res, 400, 'INVALID_ARGUMENT', 'fake upstream: streams must ask for alt=sse');
    }
    if (method === 'batchEmbedContents') {
      const requests: Json[] = Array.isArray(json.requests) ? json.requests : [];
      const wrong = requests.find((item) => item.model !== `models/${model}` || typeof item.content?.parts?.[0]?.text !== 'string');
      if (requests.length === 0 || wrong) return googleError(res, 400, 'INVALID_ARGUMENT', 'fake upstream: bad batchEmbedContents body');
      return send(res, 200, { embeddings: requests.map((_item, index) => ({ values: embeddingValues(index) })) });
    }
    generate(res, model, json, method === 'streamGenerateContent');
  });
}
