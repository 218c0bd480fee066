/**
 * One cache entry serves both kinds of client: a stored (non-streaming) answer is replayed as the SSE events a
 * streaming client expects, and a relayed stream is assembled (assemble.ts) into the one answer that is stored.
 * Chunk shapes follow https://platform.openai.com/docs/api-reference/chat-streaming: a role chunk, content,
 * tool call chunks carrying their `index`, a finish chunk with an empty delta, a usage chunk with no choices.
 */
import type { ChatCompletion, ChatCompletionChunk, ContentBlock, Usage } from '../core/openai-types.ts';

/** The legacy completions answer (https://platform.openai.com/docs/api-reference/completions/object). */
export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  provider?: string;
  system_fingerprint?: string;
  choices: Array<{ index: number; text: string; logprobs: unknown; finish_reason: string | null }>;
  usage?: Usage;
}

export type CacheableAnswer = ChatCompletion | TextCompletion;

export interface ReplayOptions {
  /**
   * Send the usage chunk (`choices: []`). OpenAI sends it only when the request asked with
   * `stream_options.include_usage`; a client that did not ask may read `choices[0]` of every chunk.
   */
  includeUsage?: boolean;
}

export const DONE_EVENT = 'data: [DONE]\n\n';

function event(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

type ChunkChoice = ChatCompletionChunk['choices'][number];
/** `refusal` streams like content (https://platform.openai.com/docs/api-reference/chat-streaming) */
type ChunkDelta = ChunkChoice['delta'] & { refusal?: string | null };

function chatEvents(answer: ChatCompletion, options: ReplayOptions): string[] {
  const head = {
    id: answer.id,
    object: 'chat.completion.chunk' as const,
    created: answer.created,
    model: answer.model,
    ...(answer.provider !== undefined ? { provider: answer.provider } : {}),
    ...(answer.system_fingerprint !== undefined ? { system_fingerprint: answer.system_fingerprint } : {}),
  };
  const chunk = (choice: ChunkChoice & { delta: ChunkDelta }): string => event({ ...head, choices: [choice] });
  const delta = (index: number, body: ChunkDelta): string => chunk({ index, delta: body, logprobs: null, finish_reason: null });
  const events: string[] = [];
  for (const choice of answer.choices) {
    const { index, message } = choice;
    // OpenAI's first chunk: an empty content, or null when the answer has none (tool calls only)
    events.push(delta(index, { role: 'assistant', content: message.content == null ? null : '' }));
    message.content_blocks?.forEach((block: ContentBlock, blockIndex) => {
      events.push(delta(index, { content_blocks: [{ index: blockIndex, delta: block }] }));
    });
    if (message.content) {
      // the answer's logprobs ride on its one content chunk; assembling concatenates them back
      events.push(chunk({ index, delta: { content: message.content }, logprobs: choice.logprobs ?? null, finish_reason: null }));
    }
    if (typeof message.refusal === 'string') events.push(delta(index, { refusal: message.refusal }));
    message.tool_calls?.forEach((call, callIndex) => {
      const { id, type, function: fn, thought_signature } = call;
      const toolDelta = { index: callIndex, id, type, function: { name: fn.name, arguments: fn.arguments } };
      events.push(delta(index, { tool_calls: [thought_signature === undefined ? toolDelta : { ...toolDelta, thought_signature }] }));
    });
    const native = choice.native_finish_reason !== undefined ? { native_finish_reason: choice.native_finish_reason } : {};
    events.push(chunk({ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason, ...native }));
  }
  if (answer.usage && options.includeUsage !== false) events.push(event({ ...head, choices: [], usage: answer.usage }));
  return events;
}

function textEvents(answer: TextCompletion, options: ReplayOptions): string[] {
  const { choices, usage, object: _object, ...head } = answer;
  const chunk = (choice: TextCompletion['choices'][number]): string =>
    event({ ...head, object: 'text_completion', choices: [choice] });
  const events: string[] = [];
  for (const choice of choices) {
    if (choice.text) events.push(chunk({ index: choice.index, text: choice.text, logprobs: choice.logprobs ?? null, finish_reason: null }));
    events.push(chunk({ index: choice.index, text: '', logprobs: null, finish_reason: choice.finish_reason }));
  }
  if (usage && options.includeUsage !== false) events.push(event({ ...head, object: 'text_completion', choices: [], usage }));
  return events;
}

/**
 * A stored body read back as an answer replay understands, or `undefined` (another route's answer, or not JSON):
 * the caller then serves the entry only to non-streaming requests.
 */
export function parseCacheableAnswer(body: string): CacheableAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('choices' in value) || !Array.isArray(value.choices)) return undefined;
  const object = 'object' in value ? value.object : undefined;
  return object === 'chat.completion' || object === 'text_completion' ? (value as CacheableAnswer) : undefined;
}

/**
 * The SSE events (each a complete `data: ...\n\n` frame) that stream a stored answer, ending with `[DONE]`.
 * Content goes out as one chunk per choice: the answer is already complete, so splitting it only adds bytes.
 */
export function replayAsStream(answer: CacheableAnswer, options: ReplayOptions = {}): string[] {
  const events = answer.object === 'text_completion' ? textEvents(answer, options) : chatEvents(answer, options);
  events.push(DONE_EVENT);
  return events;
}
