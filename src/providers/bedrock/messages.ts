/**
 * OpenAI chat messages -> Converse `system` and `messages`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html).
 * Converse wants alternating user/assistant turns: tool results become `toolResult` blocks of a user turn, and
 * consecutive turns of one role are merged. A `cache_control` marker becomes a `cachePoint` block after its part.
 */
import { invalidParam } from '../../core/errors.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: JsonRecord[];
}

const CACHE_POINT: JsonRecord = { cachePoint: { type: 'default' } };
const IMAGE_FORMATS: Readonly<Record<string, string>> = { png: 'png', jpeg: 'jpeg', jpg: 'jpeg', gif: 'gif', webp: 'webp' };

function hasCacheControl(part: JsonRecord): boolean {
  return isRecord(part.cache_control);
}

/** A data URL -> an image block; Converse takes bytes (or S3), so remote URLs cannot be sent. */
function imageBlock(part: JsonRecord, param: string): JsonRecord {
  const image = isRecord(part.image_url) ? part.image_url : undefined;
  const url = typeof image?.url === 'string' ? image.url : typeof part.image_url === 'string' ? part.image_url : '';
  const match = /^data:image\/([a-z]+);base64,(.*)$/is.exec(url);
  if (!match) {
    throw invalidParam(param, 'Bedrock takes images as data URLs (data:image/png;base64,...), not as links.', 'unsupported_image_url');
  }
  const format = IMAGE_FORMATS[match[1]!.toLowerCase()];
  if (!format) throw invalidParam(param, `Bedrock does not take image/${match[1]} images (png, jpeg, gif, webp only).`, 'unsupported_image_format');
  return { image: { format, source: { bytes: match[2]!.replace(/\s+/g, '') } } };
}

/** content (string or parts) -> Converse blocks, with a cache point after each marked part */
function contentBlocks(content: unknown, param: string, allowImages: boolean): JsonRecord[] {
  if (typeof content === 'string') return content.length > 0 ? [{ text: content }] : [];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidParam(param, 'Message content must be a string or an array of parts.');
  const blocks: JsonRecord[] = [];
  content.forEach((part: unknown, index) => {
    const partParam = `${param}[${index}]`;
    if (!isRecord(part)) throw invalidParam(partParam, 'A content part must be an object.');
    // Converse refuses blank text blocks; an empty part (and any cache marker on it) carries nothing
    if (part.type === 'text' && part.text === '') return;
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ text: part.text });
    else if (part.type === 'image_url' && allowImages) blocks.push(imageBlock(part, partParam));
    else throw invalidParam(partParam, `Content part type "${String(part.type)}" is not supported by Bedrock here.`, 'unsupported_content');
    if (hasCacheControl(part)) blocks.push(CACHE_POINT);
  });
  return blocks;
}

function parseArguments(text: unknown, param: string): unknown {
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return value;
  } catch {
    // reported below
  }
  throw invalidParam(param, 'Tool call arguments must be a JSON object: Bedrock takes tool input as JSON.');
}

/** thinking blocks kept from an earlier answer (content_blocks) go back first, as Claude requires */
function reasoningBlocks(blocks: unknown): JsonRecord[] {
  if (!Array.isArray(blocks)) return [];
  const out: JsonRecord[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === 'thinking' && typeof block.thinking === 'string') {
      const signature = typeof block.signature === 'string' ? { signature: block.signature } : {};
      out.push({ reasoningContent: { reasoningText: { text: block.thinking, ...signature } } });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      out.push({ reasoningContent: { redactedContent: block.data } });
    }
  }
  return out;
}

function assistantBlocks(message: JsonRecord, param: string, keepReasoning: boolean): JsonRecord[] {
  const blocks = keepReasoning ? reasoningBlocks(message.content_blocks) : [];
  blocks.push(...contentBlocks(message.content, `${param}.content`, false));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call: unknown, index) => {
    const callParam = `${param}.tool_calls[${index}]`;
    if (!isRecord(call) || !isRecord(call.function) || typeof call.id !== 'string' || typeof call.function.name !== 'string') {
      throw invalidParam(callParam, 'A tool call needs an id and a function name.');
    }
    const input = parseArguments(call.function.arguments, `${callParam}.function.arguments`);
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input } });
  });
  return blocks;
}

function toolResultBlocks(message: JsonRecord, param: string): JsonRecord[] {
  if (typeof message.tool_call_id !== 'string') throw invalidParam(`${param}.tool_call_id`, 'A tool message needs tool_call_id.');
  const parts = contentBlocks(message.content, `${param}.content`, true);
  const content = parts.filter((block) => !('cachePoint' in block));
  const result: JsonRecord = { toolResult: { toolUseId: message.tool_call_id, content: content.length > 0 ? content : [{ text: '' }] } };
  return parts.length > content.length ? [result, CACHE_POINT] : [result];
}

export interface ConvertedMessages {
  system: JsonRecord[];
  messages: ConverseMessage[];
}

export function convertMessages(input: unknown, keepReasoning: boolean): ConvertedMessages {
  if (!Array.isArray(input)) throw invalidParam('messages', 'messages must be an array.');
  const system: JsonRecord[] = [];
  const messages: ConverseMessage[] = [];
  const append = (role: ConverseMessage['role'], content: JsonRecord[]) => {
    if (content.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else messages.push({ role, content });
  };
  input.forEach((message: unknown, index) => {
    const param = `messages[${index}]`;
    if (!isRecord(message)) throw invalidParam(param, 'A message must be an object.');
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...contentBlocks(message.content, `${param}.content`, false));
        break;
      case 'user':
        append('user', contentBlocks(message.content, `${param}.content`, true));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, param, keepReasoning));
        break;
      case 'tool':
        append('user', toolResultBlocks(message, param));
        break;
      default:
        throw invalidParam(`${param}.role`, `Role "${String(message.role)}" is not supported by Bedrock; use tools and tool messages.`);
    }
  });
  return { system, messages };
}
