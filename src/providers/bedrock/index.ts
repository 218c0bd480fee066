/**
 * The AWS Bedrock adapter: chat through Converse / ConverseStream, embeddings through InvokeModel (Titan, Cohere),
 * rerank through the Agent Runtime, and signed pass-through to the runtime API. Region and credentials come from
 * the x-gateway-aws-* headers; every request is signed with SigV4 in `prepare`, after the body is final.
 * API reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/welcome.html
 */
import { randomUUID } from 'node:crypto';
import { invalidParam } from '../../core/errors.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, ResponseTransform, RouteKind, UpstreamRequest } from '../contract.ts';
import { credentialsOf, signRequest } from './auth.ts';
import { buildEmbeddingBody, toEmbeddingResponse } from './embeddings.ts';
import { agentRuntimeBaseUrl, modelPath, regionOf, runtimeBaseUrl } from './endpoints.ts';
import { parseBedrockError } from './errors.ts';
import { isRecord, type Json } from './messages.ts';
import { buildRerankBody, toRerankResponse } from './rerank.ts';
import { buildConverseBody } from './request.ts';
import { toChatCompletion, type ResponseDeps } from './response.ts';
import { createConverseStreamDecoder } from './stream.ts';

const JSON_TYPE = 'application/json';
const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

function bodyOf(call: InferenceCall): Json {
  return isRecord(call.body) ? call.body : {};
}

function modelOf(call: InferenceCall): string {
  const model = bodyOf(call).model;
  if (typeof model !== 'string' || !model) throw invalidParam('model', 'model is required.');
  return model;
}

function isStream(call: InferenceCall): boolean {
  return call.route === 'chat' && bodyOf(call).stream === true;
}

function jsonRequest(url: string, body: Json, warnings: string[], accept = JSON_TYPE): UpstreamRequest {
  return { method: 'POST', url, headers: { 'content-type': JSON_TYPE, accept }, body: Buffer.from(JSON.stringify(body)), warnings };
}

export function createBedrockAdapter(deps: ResponseDeps = { now: Date.now, newId: randomUUID }): ProviderAdapter {
  const transforms: Partial<Record<RouteKind, ResponseTransform>> = {
    chat: (json, call) => toChatCompletion(json, modelOf(call), call.strictReferenceCompliance, deps),
    embeddings: (json, call, target) => toEmbeddingResponse(json, call.body, target.provider),
    rerank: (json, call, target) => toRerankResponse(json, call.body, target.provider),
  };

  return {
    name: 'bedrock',
    capabilities: {
      routes: new Set<RouteKind>(['chat', 'embeddings', 'rerank', 'passthrough']),
      streaming: true,
      tools: true,
      images: true,
      reasoning: true,
      promptCaching: true,
      framing: 'aws-event-stream',
    },
    defaultBaseUrl: undefined,
    baseUrlFor: runtimeBaseUrl,

    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      // fail on missing settings before anything is sent; prepare() reads them again to sign
      const region = regionOf(target.cloud);
      credentialsOf(target);
      switch (call.route) {
        case 'chat': {
          const { body, warnings } = buildConverseBody(call.body, call.strictReferenceCompliance);
          const stream = isStream(call);
          const url = `${target.baseUrl}${modelPath(modelOf(call), stream ? 'converse-stream' : 'converse')}`;
          return jsonRequest(url, body, warnings, stream ? EVENT_STREAM_TYPE : JSON_TYPE);
        }
        case 'embeddings': {
          const { body, warnings } = buildEmbeddingBody(call.body);
          return jsonRequest(`${target.baseUrl}${modelPath(modelOf(call), 'invoke')}`, body, warnings);
        }
        case 'rerank': {
          const { body, warnings } = buildRerankBody(call.body, region);
          return jsonRequest(`${agentRuntimeBaseUrl(target)}/rerank`, body, warnings);
        }
        case 'passthrough': {
          const headers: Record<string, string> = {};
          if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? JSON_TYPE;
          const query = call.query ? `?${call.query}` : '';
          const body = call.rawBody && call.rawBody.length > 0 ? call.rawBody : undefined;
          return { method: call.method, url: `${target.baseUrl}${call.path}${query}`, headers, body, warnings: [] };
        }
        default:
          throw invalidParam('x-gateway-provider', `Provider "bedrock" does not support this route (${call.route}).`, 'unsupported_route');
      }
    },

    responseTransform(route: RouteKind) {
      return transforms[route];
    },

    streamDecoder(call: InferenceCall) {
      if (!isStream(call)) return undefined;
      const options = bodyOf(call).stream_options;
      const includeUsage = isRecord(options) && options.include_usage === true;
      return createConverseStreamDecoder({ model: modelOf(call), includeUsage, strict: call.strictReferenceCompliance }, deps);
    },

    prepare(request: UpstreamRequest, target: ProviderTarget) {
      return signRequest(request, target, () => new Date(deps.now()));
    },

    parseError: parseBedrockError,
  };
}

export const bedrockAdapter = createBedrockAdapter();
