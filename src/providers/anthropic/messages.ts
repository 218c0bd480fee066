/**
 * OpenAI chat messages -> Anthropic `system` and alternating user/assistant turns.
 * https://docs.anthropic.com/en/api/messages (request `system`, `messages`)
 * https://docs.anthropic.com/en/docs/build-with-claude/tool-use (tool_use / tool_result blocks)
 * https://docs.anthropic.com/en/docs/build-with-claude/vision (image sources)
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (thinking blocks sent back with signatures)
 */
import { badRequest, invalidParam } from '../../core/errors.ts';
import type { ChatMessage, ContentBlock, ContentPart, TextPart, ToolCall } from '../../core/openai-types.ts';
import { droppedParameter } from '../shared/warnings.ts';

export type AnthropicBlock = Record<string, unknown>;
export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}
export interface ConvertedMessages {
  system: string | AnthropicBlock[] | undefined;
  messages: AnthropicTurn[];
}
export interface ConvertOptions {
  /** thinking blocks are sent back (outside strict compliance only) */
  thinking: boolean;
  /** the adapter the warnings name */
  provider: string;
}

/** Why a provider extra (thinking, top_k) is not sent under strict compliance, and how to send it. */
export const PROVIDER_EXTRA = 'is a provider extra (send x-gateway-strict-reference-compliance: false to use it)';

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$; ids minted by other providers may not. */
export function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function withCache(block: AnthropicBlock, part: { cache_control?: unknown }): AnthropicBlock {
  return part.cache_control ? { ...block, cache_control: part.cache_control } : block;
}

function textBlock(part: TextPart): AnthropicBlock {
  return withCache({ type: 'text', text: part.text }, part);
}

function imageBlock(url: string, param: string): AnthropicBlock {
  const data = DATA_URL.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidParam(param, 'Anthropic accepts images as base64 data URLs or http(s) URLs.');
}

function userBlocks(content: string | ContentPart[], param: string, warnings: Set<string>, provider: string): AnthropicBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part, index): AnthropicBlock => {
    const where = `${param}[${index}]`;
    if (part.type === 'text' && typeof part.text === 'string') return textBlock(part as TextPart);
    if (part.type === 'image_url') {
      const image = (part as { image_url?: { url?: unknown; detail?: unknown } }).image_url;
      if (typeof image?.url !== 'string') throw invalidParam(`${where}.image_url.url`, 'The image URL is missing.');
      if (image.detail === 'low' || image.detail === 'high') warnings.add(droppedParameter(provider, 'image_url.detail'));
      return withCache(imageBlock(image.url, `${where}.image_url.url`), part as { cache_control?: unknown });
    }
    throw invalidParam(`${where}.type`, `Content parts of type "${part.type}" are not supported by Anthropic.`);
  });
}

function textOnly(content: string | TextPart[] | ContentPart[] | null | undefined, param: string): AnthropicBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part, index) => {
    // an assistant refusal part is text the model said
    if (part.type === 'refusal' && typeof part.refusal === 'string') return [{ type: 'text', text: part.refusal }];
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw invalidParam(`${param}[${index}].type`, `Only text content parts are allowed here, got "${part.type}".`);
    }
    return part.text === '' ? [] : [textBlock(part as TextPart)];
  });
}

function toolUseBlock(call: ToolCall, param: string): AnthropicBlock {
  const text = call.function.arguments.trim();
  let input: unknown = {};
  try {
    if (text !== '') input = JSON.parse(text);
  } catch {
    throw invalidParam(`${param}.function.arguments`, 'Tool call arguments must be a JSON object.');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidParam(`${param}.function.arguments`, 'Tool call arguments must be a JSON object.');
  }
  return { type: 'tool_use', id: toolUseId(call.id), name: call.function.name, input };
}

/** Thinking blocks go first in the assistant turn, with their signatures, so tool use with thinking can continue. */
function thinkingBlocks(blocks: ContentBlock[], warnings: Set<string>, provider: string): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  for (const block of blocks) {
    if (block.type === 'thinking') {
      if (typeof block.signature !== 'string' || block.signature === '') {
        warnings.add(droppedParameter(provider, 'content_blocks thinking without a signature', 'not supported (Anthropic requires one)'));
        continue;
      }
      out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      out.push({ type: 'redacted_thinking', data: block.data });
    }
  }
  return out;
}

function assistantBlocks(message: Extract<ChatMessage, { role: 'assistant' }>, param: string, options: ConvertOptions, warnings: Set<string>): AnthropicBlock[] {
  if (message.function_call) {
    throw invalidParam(`${param}.function_call`, 'The deprecated function_call is not supported for Anthropic; use tool_calls.');
  }
  const blocks = message.content_blocks ?? [];
  const head = options.thinking ? thinkingBlocks(blocks, warnings, options.provider) : [];
  if (!options.thinking && blocks.some((block) => block.type !== 'text')) {
    warnings.add(droppedParameter(options.provider, 'content_blocks thinking', PROVIDER_EXTRA));
  }
  let text = textOnly(message.content, `${param}.content`);
  // content_blocks may carry the text too; `content` wins when both are given, so it is never sent twice
  if (text.length === 0) text = blocks.flatMap((block) => (block.type === 'text' && block.text !== '' ? [{ type: 'text', text: block.text }] : []));
  const tools = (message.tool_calls ?? []).map((call, index) => toolUseBlock(call, `${param}.tool_calls[${index}]`));
  return [...head, ...text, ...tools];
}

function toolResult(message: Extract<ChatMessage, { role: 'tool' }>, param: string): AnthropicBlock {
  const content = typeof message.content === 'string' ? message.content : textOnly(message.content, `${param}.content`);
  return { type: 'tool_result', tool_use_id: toolUseId(message.tool_call_id), content };
}

/** One plain text block reads better as a string; anything else stays as blocks. */
function compact(blocks: AnthropicBlock[]): string | AnthropicBlock[] {
  const [only] = blocks;
  if (blocks.length === 1 && only?.type === 'text' && only.cache_control === undefined) return only.text as string;
  return blocks;
}

/**
 * Consecutive user, tool and assistant messages are merged into one turn each (Anthropic wants alternation);
 * inside a user turn, tool_result blocks come first, as the tool-use docs require.
 */
export function convertMessages(messages: ChatMessage[], options: ConvertOptions, warnings: Set<string>): ConvertedMessages {
  const system: AnthropicBlock[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; blocks: AnthropicBlock[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textOnly(message.content, `${param}.content`));
        return;
      case 'user':
        append('user', userBlocks(message.content, `${param}.content`, warnings, options.provider));
        return;
      case 'tool':
        append('user', [toolResult(message, param)]);
        return;
      case 'assistant':
        append('assistant', assistantBlocks(message, param, options, warnings));
        return;
      default:
        throw badRequest(`${param}: the deprecated "function" role is not supported for Anthropic; use tool messages.`, 'unsupported_role', `${param}.role`);
    }
  });
  const converted = turns.map(({ role, blocks }): AnthropicTurn => {
    if (role === 'assistant') return { role, content: compact(blocks) };
    const results = blocks.filter((block) => block.type === 'tool_result');
    const rest = blocks.filter((block) => block.type !== 'tool_result');
    return { role, content: compact([...results, ...rest]) };
  });
  const plainSystem = system.every((block) => block.cache_control === undefined);
  return {
    system: system.length === 0 ? undefined : plainSystem ? system.map((block) => block.text).join('\n\n') : system,
    messages: converted,
  };
}
