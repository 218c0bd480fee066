/**
 * Inbound Anthropic Messages request -> the gateway's canonical chat request, for a target that does not speak
 * Messages natively. The reverse of ../messages.ts and ../request.ts (which go canonical -> Messages outbound).
 * https://docs.anthropic.com/en/api/messages (system, messages, content blocks, tools, tool_choice, stop_sequences)
 * https://docs.anthropic.com/en/docs/build-with-claude/tool-use (tool_use / tool_result, disable_parallel_tool_use)
 * https://docs.anthropic.com/en/docs/build-with-claude/vision (image sources: base64, url)
 *
 * Pure. A block the canonical form cannot carry is a 400 naming its field, never silently lost; what only Anthropic
 * understands (top_k, thinking, cache_control on a non-Anthropic backend, service_tier...) is left out.
 */
import { invalidParam } from '../../../core/errors.ts';
import type { ChatMessage, ChatRequest, ContentBlock, ContentPart, FunctionTool, TextPart, ToolCall, ToolChoice } from '../../../core/openai-types.ts';
import { isRecord, type JsonRecord } from '../../shared/json.ts';

type Block = JsonRecord;

function blocksOf(content: unknown, param: string): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalidParam(param, 'The content must be a string or an array of content blocks.');
  return content.map((block, index) => {
    if (!isRecord(block) || typeof block.type !== 'string') throw invalidParam(`${param}[${index}].type`, 'Each content block must be an object with a type.');
    return block;
  });
}

function textOf(block: Block, param: string): string {
  if (typeof block.text !== 'string') throw invalidParam(`${param}.text`, 'A text block needs a text string.');
  return block.text;
}

function textPart(block: Block, param: string): TextPart {
  const part: TextPart = { type: 'text', text: textOf(block, param) };
  if (isRecord(block.cache_control)) part.cache_control = block.cache_control as TextPart['cache_control'];
  return part;
}

function imagePart(block: Block, param: string): ContentPart {
  const source = block.source;
  if (!isRecord(source)) throw invalidParam(`${param}.source`, 'An image block needs a source.');
  if (source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } };
  throw invalidParam(`${param}.source.type`, 'Image sources of type "base64" (with media_type and data) or "url" can be sent to this provider.');
}

function unsupported(block: Block, param: string): never {
  throw invalidParam(`${param}.type`, `Content blocks of type "${String(block.type)}" can only be sent to a provider that speaks the Messages API natively.`, 'unsupported_content');
}

/** A tool_result's content: its text for the tool message; its images go to a user message after the results. */
function toolResultOf(block: Block, param: string, images: ContentPart[]): ChatMessage {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') throw invalidParam(`${param}.tool_use_id`, 'A tool_result block needs its tool_use_id.');
  const texts: string[] = [];
  if (block.content !== undefined) {
    blocksOf(block.content, `${param}.content`).forEach((inner, index) => {
      const where = `${param}.content[${index}]`;
      if (inner.type === 'text') texts.push(textOf(inner, where));
      else if (inner.type === 'image') images.push(imagePart(inner, where));
      else unsupported(inner, where);
    });
  }
  const text = texts.join('\n');
  // an error result says so: other providers have no is_error flag
  const content = block.is_error === true ? `Error: ${text}` : text;
  return { role: 'tool', tool_call_id: block.tool_use_id, content };
}

/** A user turn: tool results first (one tool message each, as chat wants), then the rest as one user message. */
function userMessages(content: unknown, param: string): ChatMessage[] {
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  const images: ContentPart[] = [];
  blocksOf(content, param).forEach((block, index) => {
    const where = `${param}[${index}]`;
    if (block.type === 'text') parts.push(textPart(block, where));
    else if (block.type === 'image') parts.push(imagePart(block, where));
    else if (block.type === 'tool_result') results.push(toolResultOf(block, where, images));
    else unsupported(block, where);
  });
  const rest = [...images, ...parts];
  if (rest.length === 0) return results;
  const plain = rest.length === 1 && rest[0]!.type === 'text' && (rest[0] as TextPart).cache_control === undefined;
  return [...results, { role: 'user', content: plain ? (rest[0] as TextPart).text : rest }];
}

function assistantMessage(content: unknown, param: string): ChatMessage {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const thinking: ContentBlock[] = [];
  blocksOf(content, param).forEach((block, index) => {
    const where = `${param}[${index}]`;
    if (block.type === 'text') texts.push(textOf(block, where));
    else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') throw invalidParam(`${where}.id`, 'A tool_use block needs an id and a name.');
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      thinking.push({ type: 'thinking', thinking: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      thinking.push({ type: 'redacted_thinking', data: block.data });
    } else unsupported(block, where);
  });
  return {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(thinking.length > 0 ? { content_blocks: thinking } : {}),
  };
}

function systemMessage(system: unknown): ChatMessage[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ role: 'system', content: system }];
  const parts = blocksOf(system, 'system').map((block, index) => {
    if (block.type !== 'text') unsupported(block, `system[${index}]`);
    return textPart(block, `system[${index}]`);
  });
  if (parts.length === 0) return [];
  return [{ role: 'system', content: parts.every((part) => part.cache_control === undefined) ? parts.map((part) => part.text).join('\n\n') : parts }];
}

function toolsOf(tools: unknown): FunctionTool[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw invalidParam('tools', 'tools must be an array.');
  return tools.map((tool, index) => {
    if (!isRecord(tool) || typeof tool.name !== 'string') throw invalidParam(`tools[${index}].name`, 'Each tool needs a name.');
    // server tools (web search, bash, computer use...) run at Anthropic: there is nothing to translate them to
    if (tool.type !== undefined && tool.type !== 'custom') {
      throw invalidParam(`tools[${index}].type`, `Tools of type "${String(tool.type)}" can only be sent to a provider that speaks the Messages API natively.`, 'unsupported_tool');
    }
    const schema = isRecord(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} };
    return {
      type: 'function',
      function: { name: tool.name, ...(typeof tool.description === 'string' ? { description: tool.description } : {}), parameters: schema },
    };
  });
}

function toolChoiceOf(choice: unknown): { tool_choice?: ToolChoice; parallel_tool_calls?: boolean } {
  if (!isRecord(choice)) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      if (typeof choice.name !== 'string') throw invalidParam('tool_choice.name', 'tool_choice of type "tool" needs the tool name.');
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
    default:
      throw invalidParam('tool_choice.type', 'tool_choice.type must be "auto", "any", "tool" or "none".');
  }
}

function responseFormatOf(body: JsonRecord): Pick<ChatRequest, 'response_format'> {
  const config = body.output_config;
  const format = isRecord(config) ? config.format : undefined;
  if (!isRecord(format) || format.type !== 'json_schema' || !isRecord(format.schema)) return {};
  return { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } } };
}

/** The body as the Messages route validated it (model, max_tokens and messages present) -> a chat request. */
export function messagesToChat(body: JsonRecord): ChatRequest {
  const messages: ChatMessage[] = [...systemMessage(body.system)];
  (body.messages as unknown[]).forEach((message, index) => {
    const param = `messages[${index}]`;
    if (!isRecord(message)) throw invalidParam(param, 'Each message must be an object.');
    if (message.role === 'user') messages.push(...userMessages(message.content, `${param}.content`));
    else if (message.role === 'assistant') messages.push(assistantMessage(message.content, `${param}.content`));
    else throw invalidParam(`${param}.role`, 'The role must be "user" or "assistant".');
  });
  const chat: ChatRequest = { model: body.model as string, messages, max_tokens: body.max_tokens as number };
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences as string[];
  const metadata = body.metadata;
  if (isRecord(metadata) && typeof metadata.user_id === 'string') chat.user = metadata.user_id;
  const tools = toolsOf(body.tools);
  if (tools && tools.length > 0) Object.assign(chat, { tools }, toolChoiceOf(body.tool_choice));
  Object.assign(chat, responseFormatOf(body));
  // the usage comes with the last chunk only when asked for: the Messages stream ends with it
  if (body.stream === true) Object.assign(chat, { stream: true, stream_options: { include_usage: true } });
  return chat;
}
