/**
 * The gateway's canonical chat.completion -> an Anthropic Message, for a Messages call answered by a provider that
 * does not speak Messages. The reverse of ../response.ts.
 * https://docs.anthropic.com/en/api/messages (response: id, type, role, content, stop_reason, usage)
 * https://docs.anthropic.com/en/docs/build-with-claude/handling-stop-reasons
 */
import type { ChatCompletion, Usage } from '../../../core/openai-types.ts';
import { isRecord, numberOf, type JsonRecord } from '../../shared/json.ts';
import { toolUseId } from '../messages.ts';

/** Anthropic's own stop reasons: a decoder that kept one (Claude on another cloud) is taken at its word. */
const STOP_REASONS: ReadonlySet<string> = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

const FROM_FINISH: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** finish_reason (and the provider's own reason beside it) -> stop_reason; null while unknown. */
export function stopReasonOf(finish: unknown, native: unknown): string | null {
  if (typeof native === 'string' && STOP_REASONS.has(native)) return native;
  if (typeof finish !== 'string') return null;
  return FROM_FINISH[finish] ?? 'end_turn';
}

/**
 * Canonical usage -> Anthropic's: prompt_tokens counts cached reads and writes, Anthropic's input_tokens does not.
 * A count the provider did not report is left out (input and output are always written: the SDK reads them).
 */
export function messagesUsageOf(usage: Usage | null | undefined): JsonRecord {
  if (!isRecord(usage)) return { input_tokens: 0, output_tokens: 0 };
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const read = numberOf(details.cached_tokens);
  const write = numberOf(details.cache_creation_tokens);
  const prompt = numberOf(usage.prompt_tokens) ?? 0;
  const out: JsonRecord = {
    input_tokens: Math.max(0, prompt - (read ?? 0) - (write ?? 0)),
    output_tokens: numberOf(usage.completion_tokens) ?? 0,
  };
  if (write !== undefined) out.cache_creation_input_tokens = write;
  if (read !== undefined) out.cache_read_input_tokens = read;
  return out;
}

/** Tool arguments are a JSON string in chat and an object in Messages; text that is not an object is kept whole. */
export function toolInputOf(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // below
  }
  return { input: text };
}

/** A Message id from a chat id: the same id, prefixed as Anthropic's are when it is not already. */
export function messageIdOf(id: unknown): string {
  const text = typeof id === 'string' && id !== '' ? id : `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  return text.startsWith('msg_') ? text : `msg_${text}`;
}

export function isChatCompletion(value: unknown): value is ChatCompletion {
  return isRecord(value) && value.object === 'chat.completion' && Array.isArray(value.choices);
}

export function chatToMessage(completion: ChatCompletion): JsonRecord {
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: JsonRecord[] = [];
  for (const block of message?.content_blocks ?? []) {
    if (block.type === 'thinking') content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' });
    else if (block.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: block.data });
  }
  const text = typeof message?.content === 'string' ? message.content : null;
  if (text) content.push({ type: 'text', text });
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: toolUseId(call.id), name: call.function.name, input: toolInputOf(call.function.arguments) });
  }
  if (typeof message?.refusal === 'string' && message.refusal !== '' && !text) content.push({ type: 'text', text: message.refusal });
  return {
    id: messageIdOf(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason, choice?.native_finish_reason) ?? 'end_turn',
    stop_sequence: null,
    usage: messagesUsageOf(completion.usage),
  };
}
