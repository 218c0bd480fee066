/**
 * Google Vertex AI: Gemini chat (plain and streamed, the Gemini mappers of ../google), Claude chat (`claude-*`
 * models, the Anthropic mappers of ../anthropic), the Messages API (Claude natively, its count_tokens too; other
 * models through the chat form), text embeddings, ranking (rerank) and pass-through under the project's location.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 * Auth: `Authorization: Bearer <access token>` is used as it is; a service account key in
 * x-gateway-vertex-service-account-json is exchanged for an access token (auth.ts), and wins when both are sent.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingRequest, RerankRequest } from '../../core/openai-types.ts';
import type { PrepareContext, ProviderAdapter, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { chatRequestOf, embeddingWarnings, geminiChatCall, geminiChatTransform, geminiStreamDecoder } from '../google/index.ts';
import { systemClock, type AdapterOptions } from '../shared/clock.ts';
import { defineAdapter, type RouteHandler } from '../shared/define-adapter.ts';
import { recordOf } from '../shared/json.ts';
import { claudeOrChatMessagesRoute, cloudMessagesBody } from '../anthropic/inbound/index.ts';
import { SERVICE_ACCOUNT_HEADER, createTokenSource, parseServiceAccount } from './auth.ts';
import { VERTEX_ANTHROPIC_VERSION, claudeAnswer, claudeRequest, claudeStreamDecoder, parseVertexError } from './claude.ts';
import { claudeCountTokensRoute } from './count-tokens.ts';
import { fromPredictAnswer, toPredictBody } from './embeddings.ts';
import { checkedModel, isClaude, locationBase, rankingEndpoint, vertexBaseUrl } from './endpoints.ts';
import { fromRankAnswer, toRankBody } from './rerank.ts';

function publisherModel(target: ProviderTarget, model: string, method: string, publisher = 'google'): string {
  return `${locationBase(target)}/publishers/${publisher}/models/${model}:${method}`;
}

/**
 * The Messages route's forwarded protocol headers: the version travels in the body on Vertex, so its header goes;
 * `anthropic-beta` stays for Claude (Vertex reads it) and goes for any other publisher.
 */
function withoutMessagesHeaders(request: UpstreamRequest): Record<string, string> {
  const { 'anthropic-version': _version, 'anthropic-beta': beta, ...headers } = request.headers;
  return beta !== undefined && request.url.includes('/publishers/anthropic/') ? { ...headers, 'anthropic-beta': beta } : headers;
}

export function createVertexAdapter(options: AdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
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

  const chat: RouteHandler = {
    request(call, target) {
      const request = chatRequestOf(call);
      if (isClaude(request.model)) {
        const claude = claudeRequest(request, call, target);
        return { url: publisherModel(target, checkedModel(request.model), claude.method, 'anthropic'), body: claude.body, warnings: claude.warnings };
      }
      const built = geminiChatCall(call, target);
      const method = built.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      return { url: publisherModel(target, checkedModel(built.model), method), body: built.body, warnings: built.warnings };
    },
    response: (json, call, target) => (isClaude(chatRequestOf(call).model) ? claudeAnswer(json, call, target, clock) : gemini(json, call, target)),
    stream(call, target) {
      const request = chatRequestOf(call);
      if (!isClaude(request.model)) return geminiStreamDecoder(call, target, clock);
      return request.stream === true ? claudeStreamDecoder(request, call, target, clock) : undefined;
    },
  };

  /** the client's Messages body, to the Claude publisher's rawPredict (streamRawPredict when it streams) */
  const claudeMessages: RouteHandler = {
    request(call, target) {
      const body = cloudMessagesBody(call, VERTEX_ANTHROPIC_VERSION);
      const method = body.stream === true ? 'streamRawPredict' : 'rawPredict';
      return { url: publisherModel(target, checkedModel(recordOf(call.body).model), method, 'anthropic'), body, warnings: [] };
    },
  };

  return defineAdapter({
    name: 'vertex-ai',
    capabilities: { streaming: true, tools: true, framing: 'sse' },
    defaultBaseUrl: undefined,
    baseUrlFor: vertexBaseUrl,
    // the access token is fetched (or taken from the client) in prepare()
    headers: () => ({}),
    passthroughRoot: locationBase,
    routes: {
      chat,
      // Claude natively (rawPredict with the Messages body), any other model through the chat form
      messages: claudeOrChatMessagesRoute({ isClaude: (call) => isClaude(String(recordOf(call.body).model)), native: claudeMessages, chat }),
      'messages.count_tokens': claudeCountTokensRoute,
      embeddings: {
        request(call, target) {
          const request = call.body as EmbeddingRequest;
          return { url: publisherModel(target, checkedModel(request.model), 'predict'), body: toPredictBody(request), warnings: embeddingWarnings(request, target.provider) };
        },
        response: (json, call, target) => fromPredictAnswer(json, call.body as EmbeddingRequest, target.provider),
      },
      rerank: {
        request(call, target) {
          const request = call.body as RerankRequest;
          const endpoint = rankingEndpoint(target, request.model);
          return { url: endpoint.url, ...toRankBody(request, endpoint.model) };
        },
        response: (json, call, target) => fromRankAnswer(json, call.body as RerankRequest, target.provider),
      },
    },
    async prepare(request, target, context) {
      const token = await accessToken(target, context);
      return { ...request, headers: { ...withoutMessagesHeaders(request), authorization: `Bearer ${token}` } };
    },
    parseError: parseVertexError,
  });
}
