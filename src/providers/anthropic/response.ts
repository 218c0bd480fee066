/**
 * Anthropic Message -> OpenAI chat.completion.
 * https://docs.anthropic.com/en/api/messages (response: content blocks, stop_reason, usage)
 * https://docs.anthropic.com/en/docs/build-with-claude/handling-stop-reasons
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching (cache_read / cache_creation input tokens)
 */
import type { ChatCompletion, ContentBlock, FinishReason, ToolCall, Usage } from '../../core/openai-types.ts';
import { systemClock, unixSeconds } from '../shared/clock.ts';
import { isRecord, numberOf, type JsonRecord } from '../shared/json.ts';

export interface ResponseOptions {
  /** false: thinking blocks are returned in choices[].message.content_blocks */
  strictReferenceCompliance: boolean;
  /** the provider name written into the answer (`anthropic`, or `vertex-ai` for Claude on Vertex) */
  provider: string;
  /** unix seconds (Anthropic answers carry no timestamp); the system clock's when not given */
  created?: number;
}

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // a paused server-tool turn ends this answer; the client sends it back to continue
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** Anthropic stop_reason -> OpenAI finish_reason; a value Anthropic adds later reads as `stop` (kept raw beside). */
export function finishReasonOf(stopReason: unknown): FinishReason | null {
  if (typeof stopReason !== 'string') return null;
  return FINISH[stopReason] ?? 'stop';
}

/**
 * Anthropic counts cached input apart from `input_tokens`; OpenAI's prompt_tokens includes it. A count Anthropic
 * does not report is left out, never written as 0.
 */
export function usageOf(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = numberOf(usage.input_tokens);
  const output = numberOf(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const cacheRead = numberOf(usage.cache_read_input_tokens);
  const cacheCreation = numberOf(usage.cache_creation_input_tokens);
  const prompt = (input ?? 0) + (cacheRead ?? 0) + (cacheCreation ?? 0);
  const completion = output ?? 0;
  const out: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (cacheRead !== undefined || cacheCreation !== undefined) {
    out.prompt_tokens_details = {
      ...(cacheRead !== undefined ? { cached_tokens: cacheRead } : {}),
      ...(cacheCreation !== undefined ? { cache_creation_tokens: cacheCreation } : {}),
    };
  }
  const details = usage.output_tokens_details;
  const thinking = isRecord(details) ? numberOf(details.thinking_tokens) : undefined;
  if (thinking !== undefined) out.completion_tokens_details = { reasoning_tokens: thinking };
  return out;
}

/** Thinking blocks as the gateway returns them in content_blocks (only outside strict compliance). */
export function thinkingBlockOf(block: JsonRecord): ContentBlock | undefined {
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    return { type: 'thinking', thinking: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) };
  }
  if (block.type === 'redacted_thinking' && typeof block.data === 'string') return { type: 'redacted_thinking', data: block.data };
  return undefined;
}

export interface MessageParts {
  text: string | null;
  toolCalls: ToolCall[];
  thinking: ContentBlock[];
}

export function messageParts(content: unknown[]): MessageParts {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const thinking: ContentBlock[] = [];
  for (const block of content) {
    if (!isRecord(block)) throw new Error('a content block is not an object');
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') throw new Error('a tool_use block has no id or name');
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else {
      const converted = thinkingBlockOf(block);
      if (converted) thinking.push(converted);
    }
  }
  return { text: texts.length > 0 ? texts.join('') : null, toolCalls, thinking };
}

/** Checks the answer is an Anthropic Message; anything else throws (the core answers 502). */
export function checkMessage(json: unknown): JsonRecord & { content: unknown[] } {
  if (!isRecord(json) || json.type !== 'message' || !Array.isArray(json.content)) {
    throw new Error('the answer is not an Anthropic message');
  }
  return json as JsonRecord & { content: unknown[] };
}

/** The fields every answer built from a Message starts with, in OpenAI's order. */
export function answerHead<T extends string>(message: JsonRecord, object: T, options: ResponseOptions) {
  return {
    id: typeof message.id === 'string' ? message.id : '',
    object,
    created: options.created ?? unixSeconds(systemClock),
    model: typeof message.model === 'string' ? message.model : '',
    provider: options.provider,
  };
}

export function fromAnthropicMessage(json: unknown, options: ResponseOptions): ChatCompletion {
  const message = checkMessage(json);
  const parts = messageParts(message.content);
  const stopReason = message.stop_reason;
  const usage = usageOf(message.usage);
  const choice: ChatCompletion['choices'][number] = {
    index: 0,
    message: {
      role: 'assistant',
      content: parts.text,
      ...(parts.toolCalls.length > 0 ? { tool_calls: parts.toolCalls } : {}),
      ...(!options.strictReferenceCompliance && parts.thinking.length > 0 ? { content_blocks: parts.thinking } : {}),
    },
    logprobs: null,
    finish_reason: finishReasonOf(stopReason),
    ...(typeof stopReason === 'string' ? { native_finish_reason: stopReason } : {}),
  };
  return {
    ...answerHead(message, 'chat.completion', options),
    choices: [choice],
    ...(usage ? { usage } : {}),
  };
}
