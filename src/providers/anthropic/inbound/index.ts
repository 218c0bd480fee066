/**
 * The Anthropic Messages API inbound (POST /v1/messages): what the transport needs of it. A target that speaks
 * Messages natively gets the client's body (native.ts, on the Anthropic adapter); any other is reached through the
 * canonical chat form: request.ts (Messages -> chat), adapter.ts (the route over any chat adapter), answer.ts
 * (chat answer -> Message) and stream-encoder.ts (canonical chunks -> the Messages event stream).
 */
export { speaksMessages, withMessagesRoute } from './adapter.ts';
export { chatToMessage, isChatCompletion } from './answer.ts';
export { messagesToChat } from './request.ts';
export { createMessagesStreamEncoder, type MessagesStreamEncoder } from './stream-encoder.ts';
export { assembleMessage, isMessage, MessageAssembler, messageEvents, TEXT_DELTA } from './message-events.ts';
export { claudeOrChatMessagesRoute, cloudMessagesBody, type ClaudeOrChat } from './claude-or-chat.ts';
