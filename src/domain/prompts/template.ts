/**
 * A prompt version's `string`, as stored: either a JSON array of chat messages (the OpenAI shape, `content` a
 * string or an array of parts) whose texts are mustache templates, or a plain-text template. Plain text (or
 * `is_raw_template`) becomes one user message when rendered: every provider of the chat route takes that.
 *
 * The JSON is parsed once, here, and the texts are rendered one by one (render.ts): the JSON text itself is never
 * rendered and re-parsed, so a variable holding a quote or a brace can neither break the JSON nor add a message.
 */
import { invalidParam } from '../../core/errors.ts';

export const MAX_MESSAGES = 500;

export type TemplatePart = Readonly<Record<string, unknown>>;

export interface TemplateMessage {
  readonly role: string;
  readonly content: string | readonly TemplatePart[] | null;
  readonly [field: string]: unknown;
}

export type PromptTemplate =
  | { kind: 'messages'; messages: readonly TemplateMessage[] }
  | { kind: 'text'; text: string };

/** One renderable text of a template: where it sits (for errors) and its mustache source. */
export interface TemplateText {
  path: string;
  source: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkMessage(value: unknown, index: number, param: string): TemplateMessage {
  const at = `${param}[${index}]`;
  if (!isRecord(value)) throw invalidParam(at, `${at} must be a message object with a role.`, 'invalid_prompt_template');
  if (typeof value.role !== 'string' || value.role.length === 0) throw invalidParam(`${at}.role`, `${at}.role must be a non-empty string.`, 'invalid_prompt_template');
  const content = value.content ?? null;
  if (Array.isArray(content)) {
    content.forEach((part, partIndex) => {
      if (!isRecord(part) || typeof part.type !== 'string') {
        throw invalidParam(`${at}.content[${partIndex}]`, `${at}.content[${partIndex}] must be a content part with a type.`, 'invalid_prompt_template');
      }
    });
  } else if (content !== null && typeof content !== 'string') {
    throw invalidParam(`${at}.content`, `${at}.content must be a string, an array of content parts, or null.`, 'invalid_prompt_template');
  }
  return { ...value, role: value.role, content } as TemplateMessage;
}

/**
 * Reads a stored or submitted template. A string that starts with `[` is meant as messages: if it is not a valid
 * messages array the author gets a 400 naming `param` (rather than the JSON sent to a model as text).
 */
export function parseTemplate(source: string, isRaw: boolean, param = 'string'): PromptTemplate {
  if (isRaw || !source.trimStart().startsWith('[')) return { kind: 'text', text: source };
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch {
    throw invalidParam(param, `${param} starts with "[" but is not valid JSON: send a JSON array of messages, or set is_raw_template for plain text.`, 'invalid_prompt_template');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw invalidParam(param, `${param} must hold at least one message.`, 'invalid_prompt_template');
  if (parsed.length > MAX_MESSAGES) throw invalidParam(param, `${param} holds more than ${MAX_MESSAGES} messages.`, 'invalid_prompt_template');
  return { kind: 'messages', messages: parsed.map((message, index) => checkMessage(message, index, param)) };
}

/**
 * The texts rendered with mustache: message contents, text parts and image URLs (a variable may name an image),
 * each with its path under `root` (the field that holds the template) for errors.
 */
export function templateTexts(template: PromptTemplate, root = 'string'): TemplateText[] {
  if (template.kind === 'text') return [{ path: root, source: template.text }];
  const texts: TemplateText[] = [];
  template.messages.forEach((message, index) => {
    const content = message.content;
    if (typeof content === 'string') texts.push({ path: `${root}[${index}].content`, source: content });
    else if (content) {
      content.forEach((part, partIndex) => {
        const at = `${root}[${index}].content[${partIndex}]`;
        if (typeof part.text === 'string') texts.push({ path: `${at}.text`, source: part.text });
        const image = part.image_url;
        if (isRecord(image) && typeof image.url === 'string') texts.push({ path: `${at}.image_url.url`, source: image.url });
      });
    }
  });
  return texts;
}
