/**
 * Cohere v2 chat answer -> OpenAI chat.completion. https://docs.cohere.com/reference/chat (response)
 * `usage.tokens` counts what the model saw and wrote; `usage.billed_units` what Cohere bills (without its own
 * prompt template). The OpenAI usage reports tokens, so `tokens` wins when present.
 */
import type { ChatCompletion, ContentBlock, FinishReason, ToolCall, Usage } from '../../core/openai-types.ts';
import { isRecord, numberOf, recordOf, stringOf } from '../shared/json.ts';

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
  // an OpenAI client has no reason for these: the answer ended, and the raw value is kept beside it
  ERROR: 'stop',
  TIMEOUT: 'stop',
};

export function finishReason(raw: unknown): FinishReason {
  return (typeof raw === 'string' && FINISH_REASONS[raw]) || 'stop';
}

/** Usage when both counts are known; never a made-up 0. */
export function cohereUsage(usage: unknown): Usage | undefined {
  const record = recordOf(usage);
  const tokens = recordOf(record.tokens);
  const billed = recordOf(record.billed_units);
  const source = numberOf(tokens.input_tokens) !== undefined || numberOf(tokens.output_tokens) !== undefined ? tokens : billed;
  const prompt = numberOf(source.input_tokens);
  const completion = numberOf(source.output_tokens);
  if (prompt === undefined || completion === undefined) return undefined;
  const cached = numberOf(record.cached_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}

function toolCalls(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((call) => {
    const fn = recordOf(call.function);
    return { id: String(call.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: stringOf(fn.arguments) ?? '{}' } };
  });
}

export interface ChatContext {
  model: string;
  provider: string;
  created: number;
  /** false: thinking is returned as content_blocks (the client opted out of strict OpenAI compliance) */
  strict: boolean;
}

export function toChatCompletion(json: unknown, context: ChatContext): ChatCompletion {
  if (!isRecord(json) || !isRecord(json.message)) throw new Error('chat answer has no message');
  const message = json.message;
  const items = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  const text = items.map((item) => (item.type === 'text' ? stringOf(item.text) ?? '' : '')).join('');
  const blocks: ContentBlock[] = items.flatMap((item): ContentBlock[] => {
    if (item.type === 'thinking' && typeof item.thinking === 'string') return [{ type: 'thinking', thinking: item.thinking }];
    if (item.type === 'text' && typeof item.text === 'string') return [{ type: 'text', text: item.text }];
    return [];
  });
  const calls = toolCalls(message.tool_calls);
  // the tool plan is the text a model writes before its tool calls: OpenAI carries it as content
  const content = text || stringOf(message.tool_plan) || null;
  const rawFinish = stringOf(json.finish_reason);
  const usage = cohereUsage(json.usage);
  return {
    id: String(json.id ?? ''),
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    provider: context.provider,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(!context.strict && blocks.some((block) => block.type === 'thinking') ? { content_blocks: blocks } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(rawFinish),
        ...(rawFinish ? { native_finish_reason: rawFinish } : {}),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
