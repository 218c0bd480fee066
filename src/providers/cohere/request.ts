/**
 * OpenAI chat request -> Cohere v2 chat request. https://docs.cohere.com/reference/chat
 * Fields Cohere cannot honour are dropped and reported as warnings; Cohere's own request fields
 * (documents, citation_options, safety_mode, k, strict_tools, priority) pass through as the client sent them.
 */
import { toCohereMessages } from './messages.ts';
import { isRecord, isSet, numberOf, type JsonRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

/** OpenAI fields mapped below; anything else not in COHERE_NATIVE is dropped with a warning. */
const MAPPED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop',
  'seed', 'frequency_penalty', 'presence_penalty', 'tools', 'tool_choice', 'response_format', 'thinking', 'n',
  'parallel_tool_calls', 'strict_reference_compliance',
]);
const COHERE_NATIVE = new Set(['documents', 'citation_options', 'safety_mode', 'k', 'strict_tools', 'priority']);

export interface ChatBody {
  body: JsonRecord;
  warnings: string[];
}

/** Cohere's documented ranges: p in [0.01, 0.99], penalties in [0, 1]. Out-of-range values are clamped, not rejected upstream. */
function clamped(name: string, value: number, min: number, max: number, warn: (message: string) => void): number {
  if (value >= min && value <= max) return value;
  const next = Math.min(max, Math.max(min, value));
  warn(`cohere: ${name} ${value} is outside [${min}, ${max}]; sent as ${next}`);
  return next;
}

function tools(request: JsonRecord, body: JsonRecord, warn: (message: string) => void): void {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return;
  const functions = request.tools.filter((tool): tool is JsonRecord => isRecord(tool) && tool.type === 'function' && isRecord(tool.function));
  if (functions.length < request.tools.length) warn(droppedParameter('cohere', 'tools that are not functions'));
  body.tools = functions.map((tool) => {
    const fn = tool.function as JsonRecord;
    return {
      type: 'function',
      function: {
        name: fn.name,
        ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
        // Cohere requires a parameters schema; an argument-less OpenAI function omits it
        parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
      },
    };
  });
  // Cohere's strictness is one switch for all tools
  const strict = functions.filter((tool) => (tool.function as JsonRecord).strict === true).length;
  if (strict > 0 && strict === functions.length && !isSet(request.strict_tools)) body.strict_tools = true;
  else if (strict > 0 && strict < functions.length) warn(droppedParameter('cohere', 'per-tool strict (Cohere applies strict_tools to all tools)'));

  const choice = request.tool_choice;
  if (choice === 'required') body.tool_choice = 'REQUIRED';
  else if (choice === 'none') body.tool_choice = 'NONE';
  else if (isRecord(choice)) warn(droppedParameter('cohere', 'tool_choice naming a function', 'not supported (only auto, required, none)'));
  if (request.parallel_tool_calls === false) warn(droppedParameter('cohere', 'parallel_tool_calls: false'));
}

function responseFormat(format: unknown, body: JsonRecord): void {
  if (!isRecord(format)) return;
  if (format.type === 'json_object') body.response_format = { type: 'json_object' };
  if (format.type === 'json_schema') {
    const schema = isRecord(format.json_schema) && isRecord(format.json_schema.schema) ? format.json_schema.schema : undefined;
    body.response_format = { type: 'json_object', ...(schema ? { json_schema: schema } : {}) };
  }
}

function sampling(request: JsonRecord, body: JsonRecord, warn: (message: string) => void): void {
  // max_completion_tokens is OpenAI's newer name for the same limit
  const maxTokens = numberOf(request.max_completion_tokens) ?? numberOf(request.max_tokens);
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  const temperature = numberOf(request.temperature);
  if (temperature !== undefined) body.temperature = temperature;
  const topP = numberOf(request.top_p);
  if (topP !== undefined) body.p = clamped('top_p', topP, 0.01, 0.99, warn);
  const seed = numberOf(request.seed);
  if (seed !== undefined) body.seed = seed;
  for (const name of ['frequency_penalty', 'presence_penalty'] as const) {
    const value = numberOf(request[name]);
    if (value !== undefined) body[name] = clamped(name, value, 0, 1, warn);
  }
  if (typeof request.stop === 'string') body.stop_sequences = [request.stop];
  else if (Array.isArray(request.stop) && request.stop.length > 0) body.stop_sequences = request.stop;
  const n = numberOf(request.n);
  if (n !== undefined && n > 1) warn(droppedParameter('cohere', `n=${n}`, 'not supported (one choice only)'));
}

function thinking(value: unknown, body: JsonRecord): void {
  if (!isRecord(value) || typeof value.type !== 'string') return;
  const budget = numberOf(value.budget_tokens);
  body.thinking = { type: value.type === 'disabled' ? 'disabled' : 'enabled', ...(budget !== undefined ? { token_budget: budget } : {}) };
}

export function toCohereChat(request: unknown): ChatBody {
  const input = isRecord(request) ? request : {};
  const warnings: string[] = [];
  const warn = (message: string) => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const body: JsonRecord = { model: input.model, messages: toCohereMessages(input.messages, warn) };
  sampling(input, body, warn);
  tools(input, body, warn);
  responseFormat(input.response_format, body);
  thinking(input.thinking, body);
  for (const [key, value] of Object.entries(input)) {
    if (MAPPED.has(key)) continue;
    if (!isSet(value)) continue;
    if (COHERE_NATIVE.has(key)) body[key] = value;
    else warn(droppedParameter('cohere', key));
  }
  if (input.stream === true) body.stream = true;
  return { body, warnings };
}
