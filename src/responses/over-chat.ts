/**
 * Responses over a chat API: every adapter that serves chat but not the Responses API natively is wrapped so that
 * `responses.create` goes out as a chat call (to-chat.ts) and comes back as a Response (from-chat.ts); a stream is
 * decoded into canonical chat chunks as for chat completions (so usage, cost, limits, guardrails, cache and the
 * request log read it as they do there) and encoded into Responses events when written (write-stream.ts).
 * Adapters that speak Responses natively are left as they are: their requests pass through.
 */
import type { ChatCompletion } from '../core/openai-types.ts';
import { UNCHANGED, type InferenceCall, type ProviderAdapter, type RouteKind } from '../providers/contract.ts';
import { identityDecoder } from '../pipeline/stream-decoders.ts';
import { chatToResponse } from './from-chat.ts';
import { toChatRequest } from './to-chat.ts';
import type { ResponsesIds, ResponsesRequest } from './types.ts';

/** The chat call a Responses call becomes: same transport parts, a chat body, provider extras (thinking) allowed. */
function chatCallOf(call: InferenceCall): InferenceCall {
  const body = toChatRequest(call.body as ResponsesRequest);
  return { ...call, route: 'chat', body, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', strictReferenceCompliance: false };
}

/** The adapter, serving `responses.create` over its chat API; the adapter itself when it has Responses natively or no chat. */
export function responsesOverChat(inner: ProviderAdapter, ids: ResponsesIds): ProviderAdapter {
  const routes = inner.capabilities.routes;
  if (routes.has('responses.create') || !routes.has('chat')) return inner;
  // one translation per call: buildRequest, the decoder and the transform all read it
  const translated = new WeakMap<InferenceCall, InferenceCall>();
  const chatCall = (call: InferenceCall): InferenceCall => {
    let chat = translated.get(call);
    if (!chat) {
      chat = chatCallOf(call);
      translated.set(call, chat);
    }
    return chat;
  };
  const adapter: ProviderAdapter = {
    ...inner,
    capabilities: { ...inner.capabilities, routes: new Set<RouteKind>([...routes, 'responses.create']) },
    buildRequest: (call, target) => inner.buildRequest(call.route === 'responses.create' ? chatCall(call) : call, target),
    responseTransform(route) {
      if (route !== 'responses.create') return inner.responseTransform(route);
      const chatTransform = inner.responseTransform('chat');
      return (json, call, target) => {
        const converted = chatTransform ? chatTransform(json, chatCall(call), target) : UNCHANGED;
        const chat = (converted === UNCHANGED ? json : converted) as ChatCompletion;
        return chatToResponse(chat, call.body as ResponsesRequest, ids);
      };
    },
    streamDecoder(call, target) {
      if (call.route !== 'responses.create') return inner.streamDecoder?.(call, target);
      const chat = chatCall(call);
      if ((chat.body as { stream?: unknown }).stream !== true) return undefined;
      return inner.streamDecoder?.(chat, target) ?? identityDecoder();
    },
  };
  return adapter;
}
