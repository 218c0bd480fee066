/**
 * The Messages routes over any adapter. An adapter that serves `messages` itself speaks the Messages API natively
 * (the client's body goes through untouched); any other adapter that serves `chat` gets the route through the
 * canonical form: the Messages body becomes a chat call (request.ts), the adapter builds, reads and decodes that
 * call as it would any chat call, and the pipeline sees canonical answers and chunks (usage, guardrails, the log
 * and the cache read them as for chat). The transport turns the canonical answer back into a Message (answer.ts)
 * and the chunks into the Messages event stream (stream-encoder.ts).
 */
import { withBody, type InferenceCall } from '../../../core/inference-call.ts';
import { UNCHANGED, type ProviderAdapter, type UpstreamRequest, type ResponseTransform, type RouteKind, type StreamDecoder, type StreamEvent } from '../../contract.ts';
import { recordOf } from '../../shared/json.ts';
import { messagesToChat } from './request.ts';
import { badGateway } from '../../../core/errors.ts';

const chatCalls = new WeakMap<InferenceCall, InferenceCall>();

/** The chat call a Messages call becomes (computed once per call: build, read and decode share it). */
export function chatCallOf(call: InferenceCall): InferenceCall {
  const known = chatCalls.get(call);
  if (known) return known;
  const chat = withBody({ ...call, route: 'chat' } as InferenceCall, messagesToChat(recordOf(call.body)) as unknown as Record<string, unknown>);
  chatCalls.set(call, chat);
  return chat;
}

/** An OpenAI-format stream read as canonical chunks (the provider's `[DONE]` held back). */
export function openAiChunks(): StreamDecoder {
  return {
    push(event: StreamEvent) {
      if (event.data === '[DONE]' || event.data.trim() === '') return [];
      try {
        return [JSON.parse(event.data)];
      } catch {
        throw badGateway('The provider sent a stream event that is not JSON.', 'stream_interrupted');
      }
    },
    end: () => [],
  };
}

/** The Messages protocol headers the route forwards: meant for a provider that speaks Messages, not for a chat API. */
const PROTOCOL_HEADERS = ['anthropic-version', 'anthropic-beta'];

function withoutProtocolHeaders(request: UpstreamRequest): UpstreamRequest {
  if (!PROTOCOL_HEADERS.some((name) => name in request.headers)) return request;
  const headers = { ...request.headers };
  for (const name of PROTOCOL_HEADERS) delete headers[name];
  return { ...request, headers };
}

/** True when the adapter speaks the Messages API itself. */
export function speaksMessages(adapter: ProviderAdapter): boolean {
  return adapter.capabilities.routes.has('messages');
}

/** The adapter with the `messages` route added through the canonical chat form; native and chat-less adapters as they are. */
export function withMessagesRoute(adapter: ProviderAdapter): ProviderAdapter {
  if (speaksMessages(adapter) || !adapter.capabilities.routes.has('chat')) return adapter;
  const chatTransform = adapter.responseTransform('chat');
  // the answer of the chat call, in canonical form: never UNCHANGED, so the transport knows to convert it
  const messagesTransform: ResponseTransform = (json, call, target) => {
    if (!chatTransform) return json;
    const converted = chatTransform(json, chatCallOf(call), target);
    return converted === UNCHANGED ? json : converted;
  };
  return {
    ...adapter,
    capabilities: { ...adapter.capabilities, routes: new Set<RouteKind>([...adapter.capabilities.routes, 'messages']) },
    buildRequest: (call, target) => adapter.buildRequest(call.route === 'messages' ? chatCallOf(call) : call, target),
    responseTransform: (route) => (route === 'messages' ? messagesTransform : adapter.responseTransform(route)),
    // runs after the forwarded headers are added and before any signing: the chat API gets none of Messages' own
    prepare: (request, target, context) => {
      const stripped = withoutProtocolHeaders(request);
      return adapter.prepare ? adapter.prepare(stripped, target, context) : Promise.resolve(stripped);
    },
    streamDecoder(call, target) {
      if (call.route !== 'messages') return adapter.streamDecoder?.(call, target);
      const chat = chatCallOf(call);
      if (recordOf(chat.body).stream !== true) return undefined;
      return adapter.streamDecoder?.(chat, target) ?? openAiChunks();
    },
  };
}
