/**
 * OpenAI chat messages -> Cohere v2 chat messages (https://docs.cohere.com/reference/chat, `messages`).
 * Cohere has four roles: system, user, assistant (with `tool_calls` and `tool_plan`) and tool (with `tool_call_id`).
 */
import { isRecord, isSet, stringOf, type JsonRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

type CohereContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: JsonRecord } | { type: 'thinking'; thinking: string };

export interface CohereMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | CohereContentPart[];
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_plan?: string;
  tool_call_id?: string;
}

/** Text parts only (system and tool messages); the gateway's cache_control markers are not Cohere's. */
function textParts(content: unknown[], warn: (message: string) => void, where: string): CohereContentPart[] {
  const parts: CohereContentPart[] = [];
  for (const part of content) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
    else warn(droppedParameter('cohere', `${where} content part of type "${String(isRecord(part) ? part.type : typeof part)}"`));
  }
  return parts;
}

function userContent(content: unknown, warn: (message: string) => void): string | CohereContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: CohereContentPart[] = [];
  for (const part of content) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') {
      parts.push({ type: 'text', text: part.text });
    } else if (isRecord(part) && part.type === 'image_url' && isRecord(part.image_url) && typeof part.image_url.url === 'string') {
      // Cohere's vision models take OpenAI's image part as is: { url, detail? }
      const detail = stringOf(part.image_url.detail);
      parts.push({ type: 'image_url', image_url: { url: part.image_url.url, ...(detail ? { detail } : {}) } });
    } else {
      warn(droppedParameter('cohere', `user content part of type "${String(isRecord(part) ? part.type : typeof part)}"`));
    }
  }
  return parts;
}

function plainText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

function assistantMessage(message: JsonRecord, warn: (message: string) => void): CohereMessage {
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  if (isSet(message.function_call)) warn(droppedParameter('cohere', 'assistant function_call (use tool_calls)'));
  if (toolCalls.length > 0) {
    // Cohere puts the text that precedes tool calls in `tool_plan`, not in `content`
    const plan = plainText(message.content);
    return {
      role: 'assistant',
      tool_calls: toolCalls.map((call) => {
        const fn = isRecord(call.function) ? call.function : {};
        return { id: String(call.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: stringOf(fn.arguments) ?? '{}' } };
      }),
      ...(plan ? { tool_plan: plan } : {}),
    };
  }
  // thinking blocks handed back by the client (content_blocks) keep a reasoning model's multi-turn context
  if (Array.isArray(message.content_blocks) && message.content_blocks.length > 0) {
    const parts: CohereContentPart[] = [];
    for (const block of message.content_blocks) {
      if (!isRecord(block)) continue;
      if (block.type === 'thinking' && typeof block.thinking === 'string') parts.push({ type: 'thinking', thinking: block.thinking });
      else if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    }
    return { role: 'assistant', content: parts };
  }
  return { role: 'assistant', content: plainText(message.content) };
}

export function toCohereMessages(messages: unknown, warn: (message: string) => void): CohereMessage[] {
  if (!Array.isArray(messages)) return [];
  const out: CohereMessage[] = [];
  let namesDropped = false;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (typeof message.name === 'string' && message.role !== 'function' && !namesDropped) {
      namesDropped = true;
      warn(droppedParameter('cohere', 'message name'));
    }
    switch (message.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: Array.isArray(message.content) ? textParts(message.content, warn, 'system') : plainText(message.content) });
        break;
      case 'user':
        out.push({ role: 'user', content: userContent(message.content, warn) });
        break;
      case 'assistant':
        out.push(assistantMessage(message, warn));
        break;
      case 'tool':
        out.push({
          role: 'tool',
          tool_call_id: String(message.tool_call_id ?? ''),
          content: Array.isArray(message.content) ? textParts(message.content, warn, 'tool') : plainText(message.content),
        });
        break;
      default:
        // the deprecated `function` role has no call id Cohere could match
        warn(droppedParameter('cohere', `message with role "${String(message.role)}"`));
    }
  }
  return out;
}
