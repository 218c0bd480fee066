/**
 * The Messages routes of an adapter that speaks the Messages API itself: the client's bytes go to `/messages`
 * (and `/messages/count_tokens`) exactly as sent (cache_control, thinking blocks and their signatures untouched),
 * and the answer and its stream come back as the provider wrote them. The client's `anthropic-version` and
 * `anthropic-beta` headers reach the provider through the forwarded headers the Messages route adds.
 * https://docs.anthropic.com/en/api/messages, https://docs.anthropic.com/en/api/messages-count-tokens
 */
import type { RouteHandler } from '../../shared/define-adapter.ts';

export function nativeMessagesRoutes(messagesUrl: (baseUrl: string) => string): { messages: RouteHandler; 'messages.count_tokens': RouteHandler } {
  return {
    messages: {
      request: (call, target) => ({ url: messagesUrl(target.baseUrl), body: call.rawBody, warnings: [] }),
    },
    'messages.count_tokens': {
      request: (call, target) => ({ url: `${messagesUrl(target.baseUrl)}/count_tokens`, body: call.rawBody, warnings: [] }),
    },
  };
}
