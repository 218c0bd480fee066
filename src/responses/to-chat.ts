/**
 * A Responses request -> the canonical chat request, for a provider that does not speak Responses natively.
 * instructions -> a system message; input items -> messages (a reasoning item and the function calls that follow
 * an assistant turn join that turn; function_call_output -> a tool message); function tools -> chat tools;
 * text.format -> response_format; reasoning.effort -> reasoning_effort; max_output_tokens -> max_tokens.
 * What a chat API cannot carry (built-in tools, file inputs, item references) is a 400 naming the field.
 * https://platform.openai.com/docs/guides/migrate-to-responses
 */
import { invalidParam } from '../core/errors.ts';
import type { ChatMessage, ChatRequest, ContentBlock, ContentPart, FunctionTool, ToolCall, ToolChoice } from '../core/openai-types.ts';
import type { JsonRecord, ResponsesRequest } from './types.ts';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSet = (value: unknown) => value !== undefined && value !== null;

/** The input as items: a string is one user message. */
export function inputItemsOf(request: Pick<ResponsesRequest, 'input'>): JsonRecord[] {
  if (typeof request.input === 'string') return [{ type: 'message', role: 'user', content: request.input }];
  return request.input ?? [];
}

function userPart(part: JsonRecord, param: string): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: String(part.text) };
    case 'input_image':
      if (typeof part.image_url !== 'string') throw invalidParam(`${param}.file_id`, 'file_id images are not supported by this provider: send image_url');
      return { type: 'image_url', image_url: { url: part.image_url, ...(typeof part.detail === 'string' ? { detail: part.detail as 'auto' } : {}) } };
    default:
      throw invalidParam(`${param}.type`, `content part type '${String(part.type)}' is not supported by this provider`);
  }
}

/** An assistant or system turn's text: its text parts joined. */
function textOf(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  return (content as JsonRecord[]).map((part, index) => {
    if (part.type === 'refusal') return String(part.refusal);
    if (part.type === 'input_text' || part.type === 'output_text') return String(part.text);
    throw invalidParam(`${param}[${index}].type`, `content part type '${String(part.type)}' is not supported in this message`);
  }).join('');
}

function toolOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  return (output as JsonRecord[]).map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('');
}

/** Messages from input items; consecutive assistant pieces (reasoning, text, function calls) are one turn. */
export function messagesOf(items: readonly JsonRecord[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let turn: AssistantMessage | undefined;
  const assistantTurn = (): AssistantMessage => {
    if (!turn) {
      turn = { role: 'assistant', content: null };
      messages.push(turn);
    }
    return turn;
  };
  items.forEach((item, index) => {
    const param = `input[${index}]`;
    const type = item.type ?? 'message';
    if (type === 'message' && item.role === 'assistant') {
      const current = assistantTurn();
      // text after a function call starts a new turn: chat providers expect text before tool calls
      if (current.tool_calls) {
        turn = undefined;
        return messagesOfAssistantText(assistantTurn(), item, param);
      }
      return messagesOfAssistantText(current, item, param);
    }
    if (type === 'function_call') {
      const current = assistantTurn();
      const call: ToolCall = { id: String(item.call_id), type: 'function', function: { name: String(item.name), arguments: String(item.arguments) } };
      current.tool_calls = [...(current.tool_calls ?? []), call];
      return;
    }
    if (type === 'reasoning') {
      const current = turn && !turn.tool_calls && !turn.content ? turn : ((turn = undefined), assistantTurn());
      current.content_blocks = [...(current.content_blocks ?? []), ...thinkingOf(item)];
      return;
    }
    turn = undefined;
    if (type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: String(item.call_id), content: toolOutput(item.output) });
      return;
    }
    if (type !== 'message') throw invalidParam(`${param}.type`, `input item type '${String(type)}' is not supported by this provider`);
    if (item.role === 'user') {
      const content = typeof item.content === 'string' ? item.content : (item.content as JsonRecord[]).map((part, at) => userPart(part, `${param}.content[${at}]`));
      messages.push({ role: 'user', content });
      return;
    }
    // developer messages are system messages to a chat API (not every provider knows the developer role)
    messages.push({ role: 'system', content: textOf(item.content, `${param}.content`) });
  });
  // a reasoning item alone (no text, no call) carries nothing a chat provider takes
  return messages.filter((message) => message.role !== 'assistant' || message.content !== null || message.tool_calls);
}

function messagesOfAssistantText(turn: AssistantMessage, item: JsonRecord, param: string): void {
  const text = textOf(item.content, `${param}.content`);
  turn.content = typeof turn.content === 'string' ? turn.content + text : text;
}

/** A reasoning item back as a thinking block, its encrypted content the provider's signature. */
function thinkingOf(item: JsonRecord): ContentBlock[] {
  const summary = Array.isArray(item.summary) ? (item.summary as JsonRecord[]) : [];
  const thinking = summary.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
  const signature = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
  return [{ type: 'thinking', thinking, ...(signature ? { signature } : {}) }];
}

function toolsOf(tools: readonly JsonRecord[]): FunctionTool[] {
  return tools.map((tool, index) => {
    if (tool.type !== 'function') {
      throw invalidParam(`tools[${index}].type`, `tool type '${String(tool.type)}' is not supported by this provider: only function tools are`, 'unsupported_tool');
    }
    const definition: FunctionTool['function'] = { name: String(tool.name) };
    if (typeof tool.description === 'string') definition.description = tool.description;
    if (isRecord(tool.parameters)) definition.parameters = tool.parameters;
    if (typeof tool.strict === 'boolean') definition.strict = tool.strict;
    return { type: 'function', function: definition };
  });
}

function toolChoiceOf(choice: ResponsesRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === 'string') return choice as ToolChoice;
  if (choice.type === 'function' && typeof choice.name === 'string') return { type: 'function', function: { name: choice.name } };
  throw invalidParam('tool_choice.type', `tool_choice type '${String(choice.type)}' is not supported by this provider`);
}

function responseFormatOf(format: JsonRecord | undefined): ChatRequest['response_format'] | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: String(format.name),
      schema: format.schema as Record<string, unknown>,
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
      ...(typeof format.description === 'string' ? { description: format.description } : {}),
    },
  };
}

export function toChatRequest(request: ResponsesRequest): ChatRequest {
  if (isSet(request.previous_response_id)) {
    throw invalidParam('previous_response_id', `Previous response with id '${String(request.previous_response_id)}' not found.`, 'previous_response_not_found');
  }
  if (request.background === true) throw invalidParam('background', 'background responses are not supported by this provider');
  const messages: ChatMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '') messages.push({ role: 'system', content: request.instructions });
  messages.push(...messagesOf(inputItemsOf(request)));
  const chat: ChatRequest = { model: request.model, messages };
  if (request.tools && request.tools.length > 0) chat.tools = toolsOf(request.tools);
  const choice = toolChoiceOf(request.tool_choice);
  if (choice !== undefined && chat.tools) chat.tool_choice = choice;
  if (isSet(request.parallel_tool_calls) && chat.tools) chat.parallel_tool_calls = request.parallel_tool_calls as boolean;
  const format = responseFormatOf(request.text?.format);
  if (format) chat.response_format = format;
  if (isSet(request.max_output_tokens)) chat.max_tokens = request.max_output_tokens as number;
  if (isSet(request.temperature)) chat.temperature = request.temperature as number;
  if (isSet(request.top_p)) chat.top_p = request.top_p as number;
  if (typeof request.reasoning?.effort === 'string') chat.reasoning_effort = request.reasoning.effort;
  // the gateway's chat extra (thinking with a budget) is accepted here too, for the providers that read it
  if (isRecord(request.thinking)) chat.thinking = request.thinking as ChatRequest['thinking'];
  if (typeof request.user === 'string') chat.user = request.user;
  if (request.stream === true) {
    chat.stream = true;
    // the usage is what response.completed reports
    chat.stream_options = { include_usage: true };
  }
  return chat;
}
