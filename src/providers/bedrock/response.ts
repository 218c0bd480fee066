/**
 * Bedrock Converse answer -> OpenAI chat.completion
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 * Converse answers carry no id, model or timestamp: those come from the call and the injected clock.
 */
import type { ChatCompletion, ContentBlock, FinishReason, ToolCall, Usage } from '../../core/openai-types.ts';
import { unixSeconds, type Clock } from '../shared/clock.ts';
import { isRecord } from '../shared/json.ts';

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#bedrock-runtime_Converse-response-stopReason */
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

export function finishReasonOf(stopReason: string): FinishReason {
  return FINISH_REASONS[stopReason] ?? 'stop';
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Bedrock's inputTokens counts only the tokens not read from or written to the prompt cache
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html); OpenAI's prompt_tokens counts all.
 */
export function usageOf(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const input = count(raw.inputTokens);
  const output = count(raw.outputTokens);
  if (input === undefined || output === undefined) return undefined;
  const read = count(raw.cacheReadInputTokens);
  const write = count(raw.cacheWriteInputTokens);
  const prompt = input + (read ?? 0) + (write ?? 0);
  const details = {
    ...(read !== undefined ? { cached_tokens: read } : {}),
    ...(write !== undefined ? { cache_creation_tokens: write } : {}),
  };
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    ...(Object.keys(details).length > 0 ? { prompt_tokens_details: details } : {}),
  };
}

function reasoningBlock(value: unknown): ContentBlock | undefined {
  if (!isRecord(value)) return undefined;
  if (isRecord(value.reasoningText) && typeof value.reasoningText.text === 'string') {
    const { text, signature } = value.reasoningText;
    return { type: 'thinking', thinking: text, ...(typeof signature === 'string' ? { signature } : {}) };
  }
  if (typeof value.redactedContent === 'string') return { type: 'redacted_thinking', data: value.redactedContent };
  return undefined;
}

export function toChatCompletion(json: unknown, model: string, strict: boolean, clock: Clock): ChatCompletion {
  if (!isRecord(json) || !isRecord(json.output) || !isRecord(json.output.message) || !Array.isArray(json.output.message.content)) {
    throw new Error('the Converse answer has no output.message.content');
  }
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  const blocks: ContentBlock[] = [];
  for (const block of json.output.message.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') {
      text += block.text;
      hasText = true;
      blocks.push({ type: 'text', text: block.text });
    } else if (isRecord(block.toolUse)) {
      const { toolUseId, name, input } = block.toolUse;
      if (typeof toolUseId !== 'string' || typeof name !== 'string') throw new Error('a toolUse block lacks its id or name');
      toolCalls.push({ id: toolUseId, type: 'function', function: { name, arguments: JSON.stringify(input ?? {}) } });
    } else if (block.reasoningContent !== undefined) {
      const reasoning = reasoningBlock(block.reasoningContent);
      if (reasoning) blocks.push(reasoning);
    }
  }
  const stopReason = typeof json.stopReason === 'string' ? json.stopReason : undefined;
  const usage = usageOf(json.usage);
  const showBlocks = !strict && blocks.some((block) => block.type !== 'text');
  return {
    id: `chatcmpl-${clock.newId()}`,
    object: 'chat.completion',
    created: unixSeconds(clock),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasText ? text : null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(showBlocks ? { content_blocks: blocks } : {}),
        },
        logprobs: null,
        finish_reason: stopReason ? finishReasonOf(stopReason) : null,
        ...(stopReason ? { native_finish_reason: stopReason } : {}),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
