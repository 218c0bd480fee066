/**
 * The Messages route of a cloud that serves Claude beside other models (Vertex AI, Bedrock): a Claude model gets
 * the Messages body natively (the cloud's own URL and version field, cache_control, thinking and signatures
 * untouched), any other model the route through the canonical chat form, as withMessagesRoute gives adapters
 * without a native Messages API. The adapter then declares `messages` as its own route.
 */
import { UNCHANGED, type InferenceCall } from '../../contract.ts';
import type { RouteHandler } from '../../shared/define-adapter.ts';
import { recordOf } from '../../shared/json.ts';
import { chatCallOf, openAiChunks } from './adapter.ts';

export interface ClaudeOrChat {
  /** true when the call's model is Claude: it goes natively */
  isClaude(call: InferenceCall): boolean;
  /** the native Messages call on this cloud */
  native: RouteHandler;
  /** the adapter's chat route, for any other model */
  chat: RouteHandler;
}

export function claudeOrChatMessagesRoute({ isClaude, native, chat }: ClaudeOrChat): RouteHandler {
  return {
    request: (call, target) => (isClaude(call) ? native.request(call, target) : chat.request(chatCallOf(call), target)),
    response(json, call, target) {
      if (isClaude(call)) return native.response ? native.response(json, call, target) : UNCHANGED;
      // the chat answer in canonical form, never UNCHANGED: the transport turns it into a Message
      const converted = chat.response ? chat.response(json, chatCallOf(call), target) : json;
      return converted === UNCHANGED ? json : converted;
    },
    stream(call, target) {
      if (isClaude(call)) return native.stream?.(call, target);
      const chatCall = chatCallOf(call);
      if (recordOf(chatCall.body).stream !== true) return undefined;
      return chat.stream?.(chatCall, target) ?? openAiChunks();
    },
  };
}

/** The client's Messages body for a cloud: `model` leaves it (the cloud names the model in the URL), the version joins. */
export function cloudMessagesBody(call: InferenceCall, version: string, drop: readonly string[] = []): Record<string, unknown> {
  const { model: _model, ...body } = recordOf(call.body);
  for (const field of drop) delete body[field];
  return { anthropic_version: version, ...body };
}
