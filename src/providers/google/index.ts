/**
 * Google Gemini (the Generative Language API): chat (plain and streamed), embeddings and pass-through.
 * https://ai.google.dev/api/generate-content  https://ai.google.dev/api/embeddings
 * Auth is the API key in `x-goog-api-key` (https://ai.google.dev/gemini-api/docs/api-key), taken from the
 * client's `Authorization: Bearer <key>`.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingRequest } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind, UpstreamRequest } from '../contract.ts';
import { withVersion } from '../shared/api-version.ts';
import { systemClock, geminiChatCall, geminiChatTransform, geminiStreamDecoder, type Clock } from './chat.ts';
import { embeddingWarnings, fromGeminiEmbeddings, toGeminiEmbeddingsBody } from './embeddings.ts';
import { parseGoogleError } from './errors.ts';

export { chatRequestOf, geminiChatCall, geminiChatTransform, geminiStreamDecoder, systemClock, type Clock } from './chat.ts';
export { encodeEmbedding, embeddingWarnings, textInputs, type EmbeddingList } from './embeddings.ts';
export { parseGoogleError, streamErrorOf } from './errors.ts';
export { isRecord } from './response.ts';

const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * The Gemini API root. A custom host may be the bare origin, the form the reference API documents
 * (https://generativelanguage.googleapis.com), or a proxy prefix: both get /v1beta. A base that already names a
 * version (/v1beta, /v1, /v1alpha) is kept as given.
 */
function apiRoot(target: ProviderTarget): string {
  return withVersion(target.baseUrl, 'v1beta');
}

const MODEL = /^(?:(?:models|tunedModels)\/)?[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,199}$/;

/**
 * `gemini-2.0-flash` and `models/gemini-2.0-flash` -> `models/gemini-2.0-flash`; `tunedModels/x` stays as it is.
 * The model goes into the URL path, so anything else (`..`, slashes, encoded characters) is a 400.
 */
function modelPath(model: unknown): string {
  if (typeof model !== 'string' || !MODEL.test(model)) {
    throw invalidParam('model', 'The model must be a Gemini model name such as gemini-2.5-flash (or models/..., tunedModels/...).', 'invalid_model');
  }
  return /^(models|tunedModels)\//.test(model) ? model : `models/${model}`;
}

function keyHeader(target: ProviderTarget): Record<string, string> {
  return target.apiKey ? { 'x-goog-api-key': target.apiKey } : {};
}

function json(url: string, body: string, warnings: string[], target: ProviderTarget): UpstreamRequest {
  return { method: 'POST', url, headers: { ...keyHeader(target), 'content-type': 'application/json' }, body, warnings };
}

export function createGoogleAdapter(clock: Clock = systemClock): ProviderAdapter {
  return {
    name: 'google',
    capabilities: {
      routes: new Set<RouteKind>(['chat', 'embeddings', 'passthrough']),
      streaming: true,
      tools: true,
      images: true,
      reasoning: true,
      promptCaching: false,
      framing: 'sse',
    },
    defaultBaseUrl: DEFAULT_BASE_URL,
    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      const root = apiRoot(target);
      if (call.route === 'chat') {
        const chat = geminiChatCall(call);
        const method = chat.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
        return json(`${root}/${modelPath(chat.model)}:${method}`, chat.body, chat.warnings, target);
      }
      if (call.route === 'embeddings') {
        const request = call.body as EmbeddingRequest;
        const body = JSON.stringify(toGeminiEmbeddingsBody(request));
        return json(`${root}/${modelPath(request.model)}:batchEmbedContents`, body, embeddingWarnings(request), target);
      }
      // pass-through: the client's bytes to the same path under the Gemini base URL
      const headers: Record<string, string> = keyHeader(target);
      if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? 'application/json';
      const query = call.query ? `?${call.query}` : '';
      return { method: call.method, url: `${root}${call.path}${query}`, headers, body: call.rawBody, warnings: [] };
    },
    responseTransform(route: RouteKind) {
      if (route === 'chat') return geminiChatTransform(clock);
      if (route === 'embeddings') {
        return (answer, call, target) => fromGeminiEmbeddings(answer, call.body as EmbeddingRequest, target.provider);
      }
      return undefined;
    },
    streamDecoder: (call, target) => geminiStreamDecoder(call, target, clock),
    parseError: parseGoogleError,
  };
}
