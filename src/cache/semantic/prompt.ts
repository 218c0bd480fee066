/**
 * What a request contributes to the semantic cache: the text to embed and the `variant` every match must share.
 *
 * Only the final user turn is embedded. Everything before it (system prompt, earlier turns, tool results) and
 * every other param (tools, response format, temperature...) goes into the variant, which must match exactly.
 * Embedding the whole conversation instead would let two long chats that differ only in their last question
 * score above the threshold, the one case where a wrong answer is most likely.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, normaliseBody } from '../cache-key.ts';

export interface SemanticInput {
  text: string;
  variant: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message's text when it is text only (a string, or text parts); images and audio have no text to compare. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    // `text` in chat and Messages, `input_text` in Responses
    if (!isRecord(part) || (part.type !== 'text' && part.type !== 'input_text') || typeof part.text !== 'string') return undefined;
    texts.push(part.text);
  }
  return texts.join('\n');
}

interface FinalPrompt {
  text: string;
  /** the turns before the embedded one (chat only) */
  history: unknown[];
  rest: Record<string, unknown>;
}

/** A Responses request's input: a string, or items whose last is a user message (the turns before it kept). */
function finalInput(input: unknown, rest: Record<string, unknown>): FinalPrompt | undefined {
  if (typeof input === 'string') return { text: input, history: [], rest };
  if (!Array.isArray(input)) return undefined;
  const last: unknown = input.at(-1);
  if (!isRecord(last) || last.role !== 'user' || (last.type !== undefined && last.type !== 'message')) return undefined;
  const text = textOf(last.content);
  return text === undefined ? undefined : { text, history: input.slice(0, -1), rest };
}

function finalPrompt(body: Record<string, unknown>): FinalPrompt | undefined {
  const { messages, prompt, input, ...rest } = body;
  if (input !== undefined) return finalInput(input, rest);
  if (Array.isArray(messages)) {
    const last: unknown = messages.at(-1);
    if (!isRecord(last) || last.role !== 'user') return undefined;
    const text = textOf(last.content);
    // a named user turn is kept whole in the variant: the name can change the answer
    if (text === undefined || last.name !== undefined) return undefined;
    return { text, history: messages.slice(0, -1), rest };
  }
  if (typeof prompt === 'string') return { text: prompt, history: [], rest };
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return { text: prompt[0], history: [], rest };
  return undefined;
}

/**
 * The text and variant for a chat, completions, Messages or Responses request (a Messages `system` and a
 * Responses `instructions` are params like any other); `undefined` when it cannot be cached semantically
 * (no final user turn with text, or a non-text prompt). The model is left out of the variant: the semantic
 * cache matches on it separately.
 */
export function semanticInput(input: { provider: string; route: string; body: unknown }): SemanticInput | undefined {
  const body = normaliseBody(input.body);
  if (!isRecord(body)) return undefined;
  const found = finalPrompt(body);
  if (!found || found.text.trim() === '') return undefined;
  const { model: _model, ...params } = found.rest;
  const material = canonicalJson({ provider: input.provider, route: input.route, history: found.history, params });
  return { text: found.text, variant: createHash('sha256').update(material).digest('hex') };
}
