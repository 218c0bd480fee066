/**
 * The reverse of replay: the chunks a streaming answer was relayed as, folded back into the one answer the cache
 * stores. Content is concatenated, tool call arguments are assembled by their `index`, thinking blocks by theirs,
 * the finish reason and usage are kept. A stream that broke (an error event, a choice without a finish reason,
 * unreadable JSON) assembles to `undefined`: a partial answer must never be cached as if it were whole.
 */
import type { ChatCompletion, ChatCompletionChunk, ContentBlock, FinishReason, ToolCall, Usage } from '../core/openai-types.ts';
import type { CacheableAnswer, TextCompletion } from './replay.ts';

interface ToolCallState {
  id: string;
  name: string;
  arguments: string;
  thoughtSignature?: string;
}

interface BlockState {
  type: ContentBlock['type'];
  text: string;
  signature?: string;
}

interface ChoiceState {
  text: string;
  /** a string content was seen (even empty): without one the answer's content is null */
  sawString: boolean;
  /** a non-empty content was seen */
  sawContent: boolean;
  refusal: string | undefined;
  tools: Map<number, ToolCallState>;
  blocks: Map<number, BlockState>;
  logprobs: unknown[] | undefined;
  finish: string | null;
  native?: string;
}

type ChunkChoice = ChatCompletionChunk['choices'][number];
type BlockDelta = NonNullable<ChunkChoice['delta']['content_blocks']>[number]['delta'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An event is a whole SSE frame (`data: {...}\n\n`), a bare data payload, or an already-parsed chunk. */
function payloadOf(event: unknown): unknown {
  if (typeof event !== 'string') return event;
  const lines = event.split(/\r\n|\r|\n/);
  const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  const text = (data.length > 0 ? data.join('\n') : event).trim();
  if (text === '' || text === '[DONE]') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function mergeBlock(state: BlockState | undefined, delta: BlockDelta): BlockState {
  const next: BlockState = state ?? { type: 'type' in delta && delta.type ? delta.type : 'text' in delta ? 'text' : 'thinking', text: '' };
  if ('thinking' in delta && typeof delta.thinking === 'string') next.text += delta.thinking;
  if ('text' in delta && typeof delta.text === 'string') next.text += delta.text;
  if ('data' in delta && typeof delta.data === 'string') next.text += delta.data;
  if ('signature' in delta && typeof delta.signature === 'string') next.signature = (next.signature ?? '') + delta.signature;
  return next;
}

function blockOf(state: BlockState): ContentBlock {
  if (state.type === 'redacted_thinking') return { type: 'redacted_thinking', data: state.text };
  if (state.type === 'text') return { type: 'text', text: state.text };
  return state.signature === undefined ? { type: 'thinking', thinking: state.text } : { type: 'thinking', thinking: state.text, signature: state.signature };
}

function newChoice(): ChoiceState {
  return { text: '', sawString: false, sawContent: false, refusal: undefined, tools: new Map(), blocks: new Map(), logprobs: undefined, finish: null };
}

function foldChat(choice: ChoiceState, chunk: ChunkChoice): void {
  const delta: ChunkChoice['delta'] & { refusal?: unknown } = chunk.delta;
  if (typeof delta.refusal === 'string') choice.refusal = (choice.refusal ?? '') + delta.refusal;
  if (typeof delta.content === 'string') {
    choice.sawString = true;
    choice.text += delta.content;
    if (delta.content !== '') choice.sawContent = true;
  }
  for (const call of delta.tool_calls ?? []) {
    const state = choice.tools.get(call.index) ?? { id: '', name: '', arguments: '' };
    if (call.id) state.id = call.id;
    if (call.function?.name) state.name += call.function.name;
    if (call.function?.arguments) state.arguments += call.function.arguments;
    if (call.thought_signature !== undefined) state.thoughtSignature = call.thought_signature;
    choice.tools.set(call.index, state);
  }
  for (const block of delta.content_blocks ?? []) choice.blocks.set(block.index, mergeBlock(choice.blocks.get(block.index), block.delta));
  const logprobs = chunk.logprobs;
  if (isRecord(logprobs) && Array.isArray(logprobs.content)) choice.logprobs = [...(choice.logprobs ?? []), ...logprobs.content];
  if (chunk.finish_reason) choice.finish = chunk.finish_reason;
  if (chunk.native_finish_reason !== undefined) choice.native = chunk.native_finish_reason;
}

function chatMessage(choice: ChoiceState): ChatCompletion['choices'][number]['message'] {
  const byIndex = <T>(map: Map<number, T>): T[] => [...map.entries()].sort((a, b) => a[0] - b[0]).map(([, value]) => value);
  const toolCalls: ToolCall[] = byIndex(choice.tools).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
    ...(call.thoughtSignature !== undefined ? { thought_signature: call.thoughtSignature } : {}),
  }));
  return {
    role: 'assistant',
    // OpenAI answers `content: null` beside tool calls; an empty role-chunk content is not content
    content: choice.sawContent || (choice.sawString && toolCalls.length === 0) ? choice.text : null,
    ...(choice.refusal !== undefined ? { refusal: choice.refusal } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(choice.blocks.size > 0 ? { content_blocks: byIndex(choice.blocks).map(blockOf) } : {}),
  };
}

/** Folds a relayed stream into the answer to store; `undefined` when the stream is not a whole, successful one. */
export function assembleFromStream(events: Iterable<unknown>): CacheableAnswer | undefined {
  let head: Record<string, unknown> | undefined;
  let kind: 'chat.completion.chunk' | 'text_completion' | undefined;
  let usage: Usage | undefined;
  const choices = new Map<number, ChoiceState>();
  for (const event of events) {
    const payload = payloadOf(event);
    if (payload === undefined) continue;
    if (!isRecord(payload) || 'error' in payload || !Array.isArray(payload.choices)) return undefined;
    const object = payload.object;
    if (object !== 'chat.completion.chunk' && object !== 'text_completion') return undefined;
    if (kind !== undefined && object !== kind) return undefined;
    kind = object;
    head ??= payload;
    if (isRecord(payload.usage)) usage = payload.usage as unknown as Usage;
    for (const raw of payload.choices as unknown[]) {
      if (!isRecord(raw) || typeof raw.index !== 'number') return undefined;
      const choice = choices.get(raw.index) ?? newChoice();
      choices.set(raw.index, choice);
      if (kind === 'text_completion') {
        if (typeof raw.text === 'string') choice.text += raw.text;
        if (typeof raw.finish_reason === 'string') choice.finish = raw.finish_reason;
      } else {
        if (!isRecord(raw.delta)) return undefined;
        foldChat(choice, raw as unknown as ChunkChoice);
      }
    }
  }
  if (!head || !kind || choices.size === 0) return undefined;
  for (const choice of choices.values()) if (choice.finish === null) return undefined;
  const indexes = [...choices.keys()].sort((a, b) => a - b);
  const common = {
    id: String(head.id ?? ''),
    created: typeof head.created === 'number' ? head.created : 0,
    model: String(head.model ?? ''),
    ...(typeof head.provider === 'string' ? { provider: head.provider } : {}),
    ...(typeof head.system_fingerprint === 'string' ? { system_fingerprint: head.system_fingerprint } : {}),
  };
  const usagePart = usage ? { usage } : {};
  if (kind === 'text_completion') {
    const text: TextCompletion['choices'] = indexes.map((index) => {
      const choice = choices.get(index) ?? newChoice();
      return { index, text: choice.text, logprobs: null, finish_reason: choice.finish };
    });
    return { ...common, object: 'text_completion', choices: text, ...usagePart };
  }
  const chat: ChatCompletion['choices'] = indexes.map((index) => {
    const choice = choices.get(index) ?? newChoice();
    return {
      index,
      message: chatMessage(choice),
      logprobs: choice.logprobs ? { content: choice.logprobs } : null,
      finish_reason: choice.finish as FinishReason,
      ...(choice.native !== undefined ? { native_finish_reason: choice.native } : {}),
    };
  });
  return { ...common, object: 'chat.completion', choices: chat, ...usagePart };
}
