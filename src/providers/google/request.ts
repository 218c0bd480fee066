/**
 * OpenAI chat request -> Gemini GenerateContentRequest body (shared by the Gemini API and Vertex AI).
 * https://ai.google.dev/api/generate-content#request-body
 * https://ai.google.dev/api/generate-content#v1beta.GenerationConfig
 * https://ai.google.dev/api/caching#Tool (functionDeclarations) and #ToolConfig (functionCallingConfig)
 * https://ai.google.dev/gemini-api/docs/thinking (thinkingConfig.thinkingBudget, includeThoughts)
 * https://ai.google.dev/gemini-api/docs/openai#thinking (reasoning_effort -> thinking budget)
 */
import type { ChatRequest, FunctionTool, ToolChoice } from '../../core/openai-types.ts';
import { isSet } from '../shared/json.ts';
import { droppedParameter, unhandledFields } from '../shared/warnings.ts';
import { toGeminiMessages } from './messages.ts';
import { isEmptyObjectSchema, toGeminiSchema } from './schema.ts';

export interface GeminiBody {
  body: Record<string, unknown>;
  warnings: string[];
}

export interface GeminiBodyOptions {
  strictReferenceCompliance: boolean;
  /** the adapter the warnings name (google, or vertex-ai) */
  provider: string;
}

/** Why `thinking` is not sent under strict compliance, and how to send it. */
const PROVIDER_EXTRA = 'is a provider extra (send x-gateway-strict-reference-compliance: false to use it)';

/** Fields read below; any other field is reported as a warning and not sent (Gemini rejects unknown fields). */
const HANDLED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n',
  'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'tools', 'tool_choice', 'parallel_tool_calls',
  'response_format', 'thinking', 'reasoning_effort', 'strict_reference_compliance',
]);

/** Google's own mapping for its OpenAI-compatible endpoint. */
const EFFORT_BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576 };

function toolsOf(tools: FunctionTool[], dropped: Set<string>): Record<string, unknown>[] {
  const declarations = tools.map((tool) => {
    const declaration: Record<string, unknown> = { name: tool.function.name };
    if (tool.function.description !== undefined) declaration.description = tool.function.description;
    if (tool.function.parameters) {
      const converted = toGeminiSchema(tool.function.parameters);
      converted.dropped.forEach((keyword) => dropped.add(keyword));
      if (!isEmptyObjectSchema(converted.schema)) declaration.parameters = converted.schema;
    }
    return declaration;
  });
  return [{ functionDeclarations: declarations }];
}

function toolConfigOf(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}

function thinkingConfigOf(request: ChatRequest, options: GeminiBodyOptions, warnings: string[]): Record<string, unknown> | undefined {
  const thinking = request.thinking;
  if (isSet(thinking)) {
    if (options.strictReferenceCompliance) {
      warnings.push(droppedParameter(options.provider, 'thinking', PROVIDER_EXTRA));
    } else if (thinking!.type === 'disabled') {
      return { thinkingBudget: 0 };
    } else {
      return { ...(typeof thinking!.budget_tokens === 'number' ? { thinkingBudget: thinking!.budget_tokens } : {}), includeThoughts: true };
    }
  }
  const effort = request.reasoning_effort;
  if (typeof effort === 'string') {
    const budget = EFFORT_BUDGETS[effort];
    if (budget === undefined) warnings.push(droppedParameter(options.provider, `reasoning_effort "${effort}"`, 'not supported (no Gemini thinking budget matches it)'));
    else return { thinkingBudget: budget };
  }
  return undefined;
}

function responseFormatOf(request: ChatRequest, config: Record<string, unknown>, dropped: Set<string>): void {
  const format = request.response_format;
  if (!format || format.type === 'text') return;
  config.responseMimeType = 'application/json';
  if (format.type === 'json_schema' && format.json_schema?.schema) {
    const converted = toGeminiSchema(format.json_schema.schema);
    converted.dropped.forEach((keyword) => dropped.add(keyword));
    config.responseSchema = converted.schema;
  }
}

export function toGeminiBody(request: ChatRequest, options: GeminiBodyOptions): GeminiBody {
  const { provider } = options;
  const { contents, systemInstruction, warnings } = toGeminiMessages(request.messages, provider);
  const dropped = new Set<string>();
  const config: Record<string, unknown> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (isSet(maxTokens)) config.maxOutputTokens = maxTokens;
  if (isSet(request.temperature)) config.temperature = request.temperature;
  if (isSet(request.top_p)) config.topP = request.top_p;
  if (isSet(request.stop)) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (isSet(request.n)) config.candidateCount = request.n;
  if (isSet(request.seed)) config.seed = request.seed;
  if (isSet(request.presence_penalty)) config.presencePenalty = request.presence_penalty;
  if (isSet(request.frequency_penalty)) config.frequencyPenalty = request.frequency_penalty;
  responseFormatOf(request, config, dropped);
  const thinkingConfig = thinkingConfigOf(request, options, warnings);
  if (thinkingConfig) config.thinkingConfig = thinkingConfig;

  const body: Record<string, unknown> = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  if (request.tools && request.tools.length > 0) body.tools = toolsOf(request.tools, dropped);
  const toolConfig = toolConfigOf(request.tool_choice);
  if (toolConfig) body.toolConfig = toolConfig;
  if (Object.keys(config).length > 0) body.generationConfig = config;

  if (request.parallel_tool_calls === false) warnings.push(droppedParameter(provider, 'parallel_tool_calls: false'));
  if (dropped.size > 0) warnings.push(droppedParameter(provider, `JSON schema keywords ${[...dropped].join(', ')}`, 'not supported by Gemini'));
  warnings.push(...unhandledFields(provider, request as unknown as Record<string, unknown>, HANDLED));
  return { body, warnings };
}
