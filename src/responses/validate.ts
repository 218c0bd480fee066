/**
 * Validation of a Responses request body, before any provider sees it: a 400 naming the field (`input[2].call_id`,
 * `text.format.schema`). Only shapes are checked here; what a chat provider cannot do (a built-in tool, a file
 * input) is refused by the translation (to-chat.ts), since a provider that speaks Responses natively takes it.
 * https://platform.openai.com/docs/api-reference/responses/create
 */
import { invalidParam } from '../core/errors.ts';
import type { JsonRecord, ResponsesRequest } from './types.ts';

const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSet = (value: unknown) => value !== undefined && value !== null;

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const TOOL_CHOICES = new Set(['none', 'auto', 'required']);
const FORMATS = new Set(['text', 'json_object', 'json_schema']);
const EFFORTS = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const SUMMARIES = new Set(['auto', 'concise', 'detailed']);
const TRUNCATIONS = new Set(['auto', 'disabled']);

function string(value: unknown, param: string, options: { optional?: boolean; nonEmpty?: boolean } = {}): void {
  if (options.optional && !isSet(value)) return;
  if (typeof value !== 'string') throw invalidParam(param, `${param} must be a string`);
  if (options.nonEmpty && value === '') throw invalidParam(param, `${param} must not be empty`);
}

function number(value: unknown, param: string, minimum: number, maximum: number, integer = false): void {
  if (!isSet(value)) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw invalidParam(param, `${param} must be ${integer ? 'an integer' : 'a number'}`);
  }
  if (value < minimum || value > maximum) throw invalidParam(param, `${param} must be between ${minimum} and ${maximum}`);
}

function boolean(value: unknown, param: string): void {
  if (isSet(value) && typeof value !== 'boolean') throw invalidParam(param, `${param} must be a boolean`);
}

function oneOf(value: unknown, allowed: ReadonlySet<string>, param: string): void {
  if (isSet(value) && (typeof value !== 'string' || !allowed.has(value))) {
    throw invalidParam(param, `${param} must be one of ${[...allowed].map((name) => `'${name}'`).join(', ')}`);
  }
}

function record(value: unknown, param: string): asserts value is JsonRecord {
  if (!isRecord(value)) throw invalidParam(param, `${param} must be an object`);
}

function contentParts(content: unknown, param: string): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw invalidParam(param, `${param} must be a string or an array of content parts`);
  content.forEach((part, index) => {
    const at = `${param}[${index}]`;
    record(part, at);
    string(part.type, `${at}.type`, { nonEmpty: true });
    if (part.type === 'input_text' || part.type === 'output_text') string(part.text, `${at}.text`);
    if (part.type === 'refusal') string(part.refusal, `${at}.refusal`);
    if (part.type === 'input_image') {
      string(part.image_url, `${at}.image_url`, { optional: true });
      string(part.file_id, `${at}.file_id`, { optional: true });
      if (!isSet(part.image_url) && !isSet(part.file_id)) throw invalidParam(`${at}.image_url`, `${at} needs image_url or file_id`);
    }
  });
}

function inputItem(item: unknown, param: string): void {
  record(item, param);
  const type = item.type ?? 'message';
  string(type, `${param}.type`, { nonEmpty: true });
  switch (type) {
    case 'message':
      oneOf(item.role, MESSAGE_ROLES, `${param}.role`);
      if (!isSet(item.role)) throw invalidParam(`${param}.role`, `${param}.role is required`);
      contentParts(item.content, `${param}.content`);
      return;
    case 'function_call':
      string(item.call_id, `${param}.call_id`, { nonEmpty: true });
      string(item.name, `${param}.name`, { nonEmpty: true });
      string(item.arguments, `${param}.arguments`);
      return;
    case 'function_call_output':
      string(item.call_id, `${param}.call_id`, { nonEmpty: true });
      if (typeof item.output !== 'string') contentParts(item.output, `${param}.output`);
      return;
    case 'reasoning':
      if (isSet(item.summary) && !Array.isArray(item.summary)) throw invalidParam(`${param}.summary`, `${param}.summary must be an array`);
      string(item.encrypted_content, `${param}.encrypted_content`, { optional: true });
      return;
    default:
      // other item types (item_reference, built-in tool calls) are the native provider's to check
      return;
  }
}

function tool(value: unknown, param: string): void {
  record(value, param);
  string(value.type, `${param}.type`, { nonEmpty: true });
  if (value.type !== 'function') return;
  string(value.name, `${param}.name`, { nonEmpty: true });
  string(value.description, `${param}.description`, { optional: true });
  if (isSet(value.parameters)) record(value.parameters, `${param}.parameters`);
  boolean(value.strict, `${param}.strict`);
}

function textFormat(text: unknown): void {
  if (!isSet(text)) return;
  record(text, 'text');
  if (!isSet(text.format)) return;
  const format = text.format;
  record(format, 'text.format');
  oneOf(format.type, FORMATS, 'text.format.type');
  if (format.type !== 'json_schema') return;
  string(format.name, 'text.format.name', { nonEmpty: true });
  record(format.schema, 'text.format.schema');
  boolean(format.strict, 'text.format.strict');
}

export function validateResponsesRequest(body: unknown): ResponsesRequest {
  if (!isRecord(body)) throw invalidParam('body', 'The request body must be a JSON object.', 'invalid_body');
  string(body.model, 'model', { nonEmpty: true });
  if (typeof body.input !== 'string') {
    if (!Array.isArray(body.input)) throw invalidParam('input', 'input must be a string or an array of input items');
    body.input.forEach((item, index) => inputItem(item, `input[${index}]`));
  }
  string(body.instructions, 'instructions', { optional: true });
  string(body.previous_response_id, 'previous_response_id', { optional: true, nonEmpty: true });
  if (isSet(body.tools)) {
    if (!Array.isArray(body.tools)) throw invalidParam('tools', 'tools must be an array');
    body.tools.forEach((value, index) => tool(value, `tools[${index}]`));
  }
  if (isSet(body.tool_choice)) {
    if (typeof body.tool_choice === 'string') oneOf(body.tool_choice, TOOL_CHOICES, 'tool_choice');
    else {
      record(body.tool_choice, 'tool_choice');
      string(body.tool_choice.type, 'tool_choice.type', { nonEmpty: true });
    }
  }
  textFormat(body.text);
  if (isSet(body.reasoning)) {
    record(body.reasoning, 'reasoning');
    oneOf(body.reasoning.effort, EFFORTS, 'reasoning.effort');
    oneOf(body.reasoning.summary ?? body.reasoning.generate_summary, SUMMARIES, 'reasoning.summary');
  }
  number(body.max_output_tokens, 'max_output_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  number(body.temperature, 'temperature', 0, 2);
  number(body.top_p, 'top_p', 0, 1);
  for (const name of ['parallel_tool_calls', 'store', 'stream', 'background'] as const) boolean(body[name], name);
  string(body.user, 'user', { optional: true });
  oneOf(body.truncation, TRUNCATIONS, 'truncation');
  if (isSet(body.metadata)) {
    record(body.metadata, 'metadata');
    for (const [key, value] of Object.entries(body.metadata)) string(value, `metadata.${key}`);
  }
  if (isSet(body.include)) {
    if (!Array.isArray(body.include)) throw invalidParam('include', 'include must be an array of strings');
    body.include.forEach((value, index) => string(value, `include[${index}]`));
  }
  return body as ResponsesRequest;
}
