/**
 * OpenAI chat request -> Anthropic Messages API request body.
 * https://docs.anthropic.com/en/api/messages
 * https://docs.anthropic.com/en/docs/build-with-claude/tool-use (tools, tool_choice, disable_parallel_tool_use)
 * https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs (output_config.format)
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (thinking, budget_tokens < max_tokens)
 *
 * Pure, and shared with Claude on Vertex AI, whose body names the API version in `anthropic_version` and the
 * model in the URL instead of the body (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude).
 */
import type { ChatRequest, FunctionTool, ToolChoice } from '../../core/openai-types.ts';
import { isSet } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';
import { convertMessages, PROVIDER_EXTRA, type AnthropicBlock } from './messages.ts';

/** Anthropic requires max_tokens; 4096 is the smallest max output of the Claude models in service (Claude 3 Haiku). */
export const DEFAULT_MAX_TOKENS = 4096;

export interface MessagesBodyOptions {
  /** false when the client opted out of strict OpenAI compliance: `thinking` (and `top_k`) are sent then */
  strictReferenceCompliance: boolean;
  /** Vertex AI: `vertex-2023-10-16`, written as `anthropic_version` in the body */
  anthropicVersion?: string;
  /** Vertex AI names the model in the URL: false leaves `model` out of the body (default true) */
  includeModel?: boolean;
  /** the adapter the warnings name (default `anthropic`; `vertex-ai` for Claude on Vertex AI) */
  provider?: string;
}

/** The adapter the warnings name: anthropic, unless the caller is another (Claude on Vertex AI). */
export function providerOf(options: MessagesBodyOptions): string {
  return options.provider ?? 'anthropic';
}

export interface AnthropicBody {
  body: Record<string, unknown>;
  warnings: string[];
}

/** A JSON object answer without a schema has no native switch; Anthropic's guidance is to ask for it plainly. */
export const JSON_OBJECT_INSTRUCTION = 'Respond only with a single valid JSON object, without any text before or after it.';

/** Fields read below; any other field is reported as a warning and not sent (Anthropic rejects unknown fields). */
const HANDLED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p',
  'stop', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'thinking', 'user', 'n', 'top_k',
  'strict_reference_compliance',
]);

function toolsOf(tools: FunctionTool[], warnings: Set<string>, provider: string): AnthropicBlock[] {
  return tools.map((tool) => {
    // Anthropic's strict tool use only exists on recent models; forwarding it would break the others
    if (tool.function.strict === true) warnings.add(droppedParameter(provider, 'tools[].function.strict'));
    const out: AnthropicBlock = {
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    };
    if (tool.cache_control) out.cache_control = tool.cache_control;
    return out;
  });
}

function toolChoiceOf(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicBlock | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...single };
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...single };
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...single };
  return undefined;
}

function stopSequences(stop: ChatRequest['stop']): string[] | undefined {
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop) && stop.length > 0) return stop;
  return undefined;
}

/** Sampling, stop and user settings shared by chat and text completions. */
export function commonParams(chat: Record<string, unknown>, warnings: Set<string>, provider: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const temperature = chat.temperature;
  if (typeof temperature === 'number') {
    // OpenAI allows 0..2, Anthropic 0..1
    if (temperature > 1) warnings.add(`temperature ${temperature} was lowered to 1, the Anthropic maximum`);
    out.temperature = Math.min(temperature, 1);
  }
  if (typeof chat.top_p === 'number') out.top_p = chat.top_p;
  const stop = stopSequences(chat.stop as ChatRequest['stop']);
  if (stop) out.stop_sequences = stop;
  if (typeof chat.user === 'string') out.metadata = { user_id: chat.user };
  if (typeof chat.n === 'number' && chat.n > 1) warnings.add(droppedParameter(provider, `n=${chat.n}`, 'not supported (one choice only)'));
  return out;
}

/** Unknown or unsupported fields are dropped, never sent, and named in a warning. */
export function warnUnhandled(body: Record<string, unknown>, handled: ReadonlySet<string>, warnings: Set<string>, provider: string): void {
  for (const [key, value] of Object.entries(body)) {
    // false and zero penalties are OpenAI's defaults, which some clients always send: not a setting to report
    const isDefault = value === false || (key.endsWith('_penalty') && value === 0);
    if (!handled.has(key) && isSet(value) && !isDefault) warnings.add(droppedParameter(provider, key));
  }
}

/** max_completion_tokens first (OpenAI's current name), then max_tokens, else a default above any thinking budget. */
export function maxTokensOf(chat: Record<string, unknown>, budget: number | undefined): number {
  if (typeof chat.max_completion_tokens === 'number') return chat.max_completion_tokens;
  if (typeof chat.max_tokens === 'number') return chat.max_tokens;
  return DEFAULT_MAX_TOKENS + (budget ?? 0);
}

export function envelope(chat: { model: string }, options: MessagesBodyOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options.anthropicVersion) out.anthropic_version = options.anthropicVersion;
  if (options.includeModel !== false) out.model = chat.model;
  return out;
}

function responseFormat(chat: ChatRequest, body: Record<string, unknown>, warnings: Set<string>, provider: string): void {
  const format = chat.response_format;
  if (format?.type === 'json_schema') {
    const schema = format.json_schema?.schema;
    if (schema) body.output_config = { format: { type: 'json_schema', schema } };
    else warnings.add(droppedParameter(provider, 'response_format json_schema without a schema'));
  } else if (format?.type === 'json_object') {
    const instruction = { type: 'text', text: JSON_OBJECT_INSTRUCTION };
    const system = body.system;
    body.system = system === undefined ? JSON_OBJECT_INSTRUCTION : typeof system === 'string' ? `${system}\n\n${JSON_OBJECT_INSTRUCTION}` : [...(system as AnthropicBlock[]), instruction];
    warnings.add('response_format json_object is asked of Anthropic with a system instruction, not enforced');
  }
}

export function toAnthropicMessagesBody(chat: ChatRequest, options: MessagesBodyOptions): AnthropicBody {
  const warnings = new Set<string>();
  const provider = providerOf(options);
  const extras = !options.strictReferenceCompliance;
  const thinking = extras && chat.thinking ? chat.thinking : undefined;
  if (!extras && isSet(chat.thinking)) warnings.add(droppedParameter(provider, 'thinking', PROVIDER_EXTRA));
  if (!extras && isSet(chat.top_k)) warnings.add(droppedParameter(provider, 'top_k', PROVIDER_EXTRA));
  const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : undefined;

  const { system, messages } = convertMessages(chat.messages, { thinking: extras, provider }, warnings);
  const body: Record<string, unknown> = {
    ...envelope(chat, options),
    max_tokens: maxTokensOf(chat, budget),
    ...(system !== undefined ? { system } : {}),
    messages,
  };
  Object.assign(body, commonParams(chat, warnings, provider));
  if (extras && typeof chat.top_k === 'number') body.top_k = chat.top_k;
  if (thinking) body.thinking = { type: thinking.type, ...(budget !== undefined ? { budget_tokens: budget } : {}) };
  if (chat.tools && chat.tools.length > 0) {
    body.tools = toolsOf(chat.tools, warnings, provider);
    const choice = toolChoiceOf(chat.tool_choice, chat.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  responseFormat(chat, body, warnings, provider);
  if (chat.stream === true) body.stream = true;
  warnUnhandled(chat, HANDLED, warnings, provider);
  return { body, warnings: [...warnings] };
}
