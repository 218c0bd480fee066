/**
 * The AWS Bedrock adapter: chat through Converse / ConverseStream, the Messages API (Claude natively through
 * InvokeModel, claude-messages.ts, and its count_tokens through CountTokens, count-tokens.ts; other models through
 * Converse), embeddings through InvokeModel (Titan, Cohere), rerank through the Agent Runtime, and signed
 * pass-through to the runtime API. Region and credentials come from
 * the x-gateway-aws-* headers; every request is signed with SigV4 in `prepare`, after the body is final.
 * API reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/welcome.html
 */
import { invalidParam } from '../../core/errors.ts';
import type { InferenceCall, ProviderAdapter } from '../contract.ts';
import { systemClock, type AdapterOptions } from '../shared/clock.ts';
import { defineAdapter, type RouteHandler } from '../shared/define-adapter.ts';
import { claudeOrChatMessagesRoute } from '../anthropic/inbound/index.ts';
import { claudeMessagesRoute, isClaudeCall, withBetasInBody } from './claude-messages.ts';
import { claudeCountTokensRoute, withBetasInCountedBody } from './count-tokens.ts';
import { recordOf, type JsonRecord } from '../shared/json.ts';
import { credentialsOf, signRequest } from './auth.ts';
import { bedrockResourceHooks } from './batch.ts';
import { buildEmbeddingBody, toEmbeddingResponse } from './embeddings.ts';
import { agentRuntimeBaseUrl, modelPath, regionOf, runtimeBaseUrl } from './endpoints.ts';
import { parseBedrockError } from './errors.ts';
import { buildRerankBody, toRerankResponse } from './rerank.ts';
import { buildConverseBody } from './request.ts';
import { toChatCompletion } from './response.ts';
import { createConverseStreamDecoder } from './stream.ts';

const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

function modelOf(call: InferenceCall): string {
  const model = recordOf(call.body).model;
  if (typeof model !== 'string' || !model) throw invalidParam('model', 'model is required.');
  return model;
}

function isStream(call: InferenceCall): boolean {
  return recordOf(call.body).stream === true;
}

/** The body as bytes: SigV4 signs exactly what is sent. */
function encoded(built: { body: JsonRecord; warnings: string[] }): { body: Buffer; warnings: string[] } {
  return { body: Buffer.from(JSON.stringify(built.body)), warnings: built.warnings };
}

export function createBedrockAdapter(options: AdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
  const chat: RouteHandler = {
    request(call, target) {
      const built = encoded(buildConverseBody(call.body, call.strictReferenceCompliance));
      const stream = isStream(call);
      const url = `${target.baseUrl}${modelPath(modelOf(call), stream ? 'converse-stream' : 'converse')}`;
      return { url, ...built, headers: { accept: stream ? EVENT_STREAM_TYPE : 'application/json' } };
    },
    response: (json, call) => toChatCompletion(json, modelOf(call), call.strictReferenceCompliance, clock),
    stream(call) {
      if (!isStream(call)) return undefined;
      const includeUsage = recordOf(recordOf(call.body).stream_options).include_usage === true;
      return createConverseStreamDecoder({ model: modelOf(call), includeUsage, strict: call.strictReferenceCompliance }, clock);
    },
  };

  const adapter = defineAdapter({
    name: 'bedrock',
    capabilities: { streaming: true, tools: true, framing: 'aws-event-stream' },
    defaultBaseUrl: undefined,
    baseUrlFor: runtimeBaseUrl,
    // the credential travels in the SigV4 signature, added by prepare()
    headers: () => ({}),
    checkTarget(target) {
      // fail on missing settings before anything is sent; prepare() reads them again to sign
      regionOf(target.cloud);
      credentialsOf(target);
    },
    routes: {
      chat,
      // Claude natively (InvokeModel with the Messages body), any other model through the chat form (Converse)
      messages: claudeOrChatMessagesRoute({ isClaude: isClaudeCall, native: claudeMessagesRoute, chat }),
      'messages.count_tokens': claudeCountTokensRoute,
      embeddings: {
        request(call, target) {
          const built = encoded(buildEmbeddingBody(call.body));
          return { url: `${target.baseUrl}${modelPath(modelOf(call), 'invoke')}`, ...built, headers: { accept: 'application/json' } };
        },
        response: (json, call, target) => toEmbeddingResponse(json, call.body, target.provider),
      },
      rerank: {
        request(call, target) {
          const built = encoded(buildRerankBody(call.body, regionOf(target.cloud)));
          return { url: `${agentRuntimeBaseUrl(target)}/rerank`, ...built, headers: { accept: 'application/json' } };
        },
        response: (json, call, target) => toRerankResponse(json, call.body, target.provider),
      },
    },
    prepare: (request, target) => signRequest(withBetasInBody(withBetasInCountedBody(request)), target, () => new Date(clock.now())),
    parseError: parseBedrockError,
  });
  return { ...adapter, resources: bedrockResourceHooks };
}

export const bedrockAdapter = createBedrockAdapter();
