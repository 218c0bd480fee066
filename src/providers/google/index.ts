/**
 * Google Gemini (the Generative Language API): chat (plain and streamed), embeddings and pass-through.
 * https://ai.google.dev/api/generate-content  https://ai.google.dev/api/embeddings
 * Auth is the API key in `x-goog-api-key` (https://ai.google.dev/gemini-api/docs/api-key), taken from the
 * client's `Authorization: Bearer <key>`.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingRequest } from '../../core/openai-types.ts';
import type { ProviderAdapter, ProviderTarget } from '../contract.ts';
import { withVersion } from '../shared/api-version.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { systemClock, type AdapterOptions } from '../shared/clock.ts';
import { defineAdapter } from '../shared/define-adapter.ts';
import { geminiChatCall, geminiChatTransform, geminiStreamDecoder } from './chat.ts';
import { embeddingWarnings, fromGeminiEmbeddings, toGeminiEmbeddingsBody } from './embeddings.ts';
import { parseGoogleError } from './errors.ts';

export { chatRequestOf, geminiChatCall, geminiChatTransform, geminiStreamDecoder } from './chat.ts';
export { encodeEmbedding, embeddingWarnings, textInputs, type EmbeddingList } from './embeddings.ts';
export { parseGoogleError, streamErrorOf } from './errors.ts';

const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * The Gemini API root, for every route and pass-through. A custom host may be the bare origin, the form the
 * reference API documents (https://generativelanguage.googleapis.com), or a proxy prefix: both get /v1beta. A base
 * that already names a version (/v1beta, /v1, /v1alpha) is kept as given.
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

export function createGoogleAdapter(options: AdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
  return defineAdapter({
    name: 'google',
    capabilities: { streaming: true, tools: true, framing: 'sse' },
    defaultBaseUrl: DEFAULT_BASE_URL,
    headers: (target) => authHeaders('x-goog-api-key', target.apiKey),
    passthroughRoot: apiRoot,
    parseError: parseGoogleError,
    routes: {
      chat: {
        request(call, target) {
          const chat = geminiChatCall(call, target);
          const method = chat.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
          return { url: `${apiRoot(target)}/${modelPath(chat.model)}:${method}`, body: chat.body, warnings: chat.warnings };
        },
        response: geminiChatTransform(clock),
        stream: (call, target) => geminiStreamDecoder(call, target, clock),
      },
      embeddings: {
        request(call, target) {
          const request = call.body as EmbeddingRequest;
          const body = toGeminiEmbeddingsBody(request);
          return { url: `${apiRoot(target)}/${modelPath(request.model)}:batchEmbedContents`, body, warnings: embeddingWarnings(request, target.provider) };
        },
        response: (answer, call, target) => fromGeminiEmbeddings(answer, call.body as EmbeddingRequest, target.provider),
      },
    },
  });
}
