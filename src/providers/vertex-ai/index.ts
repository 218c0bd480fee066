/**
 * Google Vertex AI: Gemini chat (plain and streamed, the Gemini mappers of ../google), Claude chat (`claude-*`
 * models, the Anthropic mappers of ../anthropic), text embeddings, ranking (rerank) and pass-through under the
 * project's location.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 * Auth: `Authorization: Bearer <access token>` is used as it is; a service account key in
 * x-gateway-vertex-service-account-json is exchanged for an access token (auth.ts), and wins when both are sent.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingRequest, RerankRequest } from '../../core/openai-types.ts';
import type { InferenceCall, PrepareContext, ProviderAdapter, ProviderTarget, RouteKind, UpstreamRequest } from '../contract.ts';
import { chatRequestOf, embeddingWarnings, geminiChatCall, geminiChatTransform, geminiStreamDecoder, systemClock, type Clock } from '../google/index.ts';
import { SERVICE_ACCOUNT_HEADER, createTokenSource, parseServiceAccount } from './auth.ts';
import { claudeAnswer, claudeRequest, claudeStreamDecoder, parseVertexError } from './claude.ts';
import { fromPredictAnswer, toPredictBody } from './embeddings.ts';
import { checkedModel, isClaude, locationBase, rankingEndpoint, vertexBaseUrl } from './endpoints.ts';
import { fromRankAnswer, toRankBody } from './rerank.ts';

function post(url: string, body: unknown, warnings: string[]): UpstreamRequest {
  return { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body), warnings };
}

function publisherModel(target: ProviderTarget, model: string, method: string, publisher = 'google'): string {
  return `${locationBase(target)}/publishers/${publisher}/models/${model}:${method}`;
}

export function createVertexAdapter(clock: Clock = systemClock): ProviderAdapter {
  const tokens = createTokenSource({ now: () => clock.now() });
  const gemini = geminiChatTransform(clock);

  async function accessToken(target: ProviderTarget, context: PrepareContext | undefined): Promise<string> {
    const key = target.cloud['vertex-service-account-json'];
    if (key !== undefined) return tokens.accessToken(parseServiceAccount(key), context);
    if (target.apiKey) return target.apiKey;
    throw invalidParam(
      'authorization',
      `Vertex AI needs credentials: send Authorization: Bearer <access token>, or a service account key in ${SERVICE_ACCOUNT_HEADER}.`,
      'missing_provider_credentials',
    );
  }

  return {
    name: 'vertex-ai',
    capabilities: {
      routes: new Set<RouteKind>(['chat', 'embeddings', 'rerank', 'passthrough']),
      streaming: true,
      tools: true,
      images: true,
      reasoning: true,
      promptCaching: false,
      framing: 'sse',
    },
    defaultBaseUrl: undefined,
    baseUrlFor: vertexBaseUrl,
    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      switch (call.route) {
        case 'chat': {
          const request = chatRequestOf(call);
          if (isClaude(request.model)) {
            const claude = claudeRequest(request, call);
            return post(publisherModel(target, checkedModel(request.model), claude.method, 'anthropic'), claude.body, claude.warnings);
          }
          const chat = geminiChatCall(call);
          const method = chat.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
          return post(publisherModel(target, checkedModel(chat.model), method), chat.body, chat.warnings);
        }
        case 'embeddings': {
          const request = call.body as EmbeddingRequest;
          return post(publisherModel(target, checkedModel(request.model), 'predict'), toPredictBody(request), embeddingWarnings(request));
        }
        case 'rerank': {
          const request = call.body as RerankRequest;
          const endpoint = rankingEndpoint(target, request.model);
          const { body, warnings } = toRankBody(request, endpoint.model);
          return post(endpoint.url, body, warnings);
        }
        default: {
          const headers: Record<string, string> = {};
          if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? 'application/json';
          const query = call.query ? `?${call.query}` : '';
          return { method: call.method, url: `${locationBase(target)}${call.path}${query}`, headers, body: call.rawBody, warnings: [] };
        }
      }
    },
    responseTransform(route: RouteKind) {
      if (route === 'chat') return (json, call, target) => (isClaude(chatRequestOf(call).model) ? claudeAnswer(json, call, target, clock) : gemini(json, call, target));
      if (route === 'embeddings') return (json, call, target) => fromPredictAnswer(json, call.body as EmbeddingRequest, target.provider);
      if (route === 'rerank') return (json, call, target) => fromRankAnswer(json, call.body as RerankRequest, target.provider);
      return undefined;
    },
    streamDecoder(call, target) {
      if (call.route !== 'chat') return undefined;
      const request = chatRequestOf(call);
      if (!isClaude(request.model)) return geminiStreamDecoder(call, target, clock);
      return request.stream === true ? claudeStreamDecoder(request, call, target, clock) : undefined;
    },
    async prepare(request, target, context) {
      const token = await accessToken(target, context);
      return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
    },
    parseError: parseVertexError,
  };
}
