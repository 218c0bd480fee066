/**
 * OpenAI chat request -> Bedrock Converse / ConverseStream request body
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
 * Settings Converse has no place for are dropped and reported as warnings, never sent.
 */
import { invalidParam } from '../../core/errors.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';
import { convertMessages } from './messages.ts';

export interface ConverseRequest {
  body: JsonRecord;
  warnings: string[];
}

const CACHE_POINT: JsonRecord = { cachePoint: { type: 'default' } };

/** settings with no Converse equivalent: warned about when set to anything but their neutral value */
const UNSUPPORTED: ReadonlyArray<[string, (value: unknown) => boolean]> = [
  ['n', (value) => typeof value === 'number' && value > 1],
  ['seed', (value) => value !== null && value !== undefined],
  ['frequency_penalty', (value) => typeof value === 'number' && value !== 0],
  ['presence_penalty', (value) => typeof value === 'number' && value !== 0],
  ['logit_bias', (value) => isRecord(value) && Object.keys(value).length > 0],
  ['logprobs', (value) => value === true],
  ['top_logprobs', (value) => typeof value === 'number'],
  ['response_format', (value) => isRecord(value) && value.type !== 'text'],
  ['reasoning_effort', (value) => typeof value === 'string'],
  ['functions', (value) => Array.isArray(value)],
  ['function_call', (value) => value !== null && value !== undefined],
  ['parallel_tool_calls', (value) => value === false],
];

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function inferenceConfig(body: JsonRecord): JsonRecord | undefined {
  const config: JsonRecord = {};
  const maxTokens = numberOf(body.max_completion_tokens) ?? numberOf(body.max_tokens);
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  if (typeof body.temperature === 'number') config.temperature = body.temperature;
  if (typeof body.top_p === 'number') config.topP = body.top_p;
  if (typeof body.stop === 'string') config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) config.stopSequences = body.stop;
  return Object.keys(config).length > 0 ? config : undefined;
}

function toolChoice(choice: unknown): JsonRecord | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string') {
    return { tool: { name: choice.function.name } };
  }
  throw invalidParam('tool_choice', 'tool_choice must be "none", "auto", "required" or a named function.');
}

function toolConfig(body: JsonRecord, warnings: string[]): JsonRecord | undefined {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length === 0) return undefined;
  if (body.tool_choice === 'none') {
    warnings.push(droppedParameter('bedrock', 'tools with tool_choice "none"', 'not supported (Converse has no "none" choice)'));
    return undefined;
  }
  const specs: JsonRecord[] = [];
  tools.forEach((tool: unknown, index) => {
    if (!isRecord(tool) || !isRecord(tool.function) || typeof tool.function.name !== 'string') {
      throw invalidParam(`tools[${index}]`, 'A tool needs a function with a name.');
    }
    const { name, description, parameters } = tool.function;
    specs.push({
      toolSpec: {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        inputSchema: { json: isRecord(parameters) ? parameters : { type: 'object', properties: {} } },
      },
    });
    if (isRecord(tool.cache_control)) specs.push(CACHE_POINT);
  });
  const choice = toolChoice(body.tool_choice);
  return { tools: specs, ...(choice ? { toolChoice: choice } : {}) };
}

/**
 * `thinking` (Anthropic's reasoning switch) is a provider extra: passed as additionalModelRequestFields only when
 * the client opted out of strict OpenAI compliance.
 */
function additionalFields(body: JsonRecord, strict: boolean, warnings: string[]): JsonRecord | undefined {
  if (!isRecord(body.thinking)) return undefined;
  if (strict) {
    warnings.push(droppedParameter('bedrock', 'thinking', 'is a provider extra (send x-gateway-strict-reference-compliance: false to use it)'));
    return undefined;
  }
  return { thinking: body.thinking };
}

export function buildConverseBody(input: unknown, strict: boolean): ConverseRequest {
  if (!isRecord(input)) throw invalidParam('body', 'The request body must be a JSON object.');
  const warnings: string[] = [];
  for (const [name, isSet] of UNSUPPORTED) {
    if (isSet(input[name])) warnings.push(droppedParameter('bedrock', name));
  }
  const { system, messages } = convertMessages(input.messages, !strict);
  if (messages.length === 0) throw invalidParam('messages', 'Bedrock needs at least one user or assistant message.');
  const config = inferenceConfig(input);
  const tools = toolConfig(input, warnings);
  const additional = additionalFields(input, strict, warnings);
  return {
    body: {
      messages,
      ...(system.length > 0 ? { system } : {}),
      ...(config ? { inferenceConfig: config } : {}),
      ...(tools ? { toolConfig: tools } : {}),
      ...(additional ? { additionalModelRequestFields: additional } : {}),
    },
    warnings,
  };
}
