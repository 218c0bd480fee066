/**
 * A streamed answer as one object, for the request log: OpenAI-format chunks (chat or text completions) folded
 * into the `chat.completion` / `text_completion` object a non-streamed request would have got. Pure; the input is
 * either canonical chunk objects or the raw SSE text of a relayed stream.
 */
import { TextLimit } from '../core/text-limit.ts';

interface ChoiceState {
  index: number;
  role: string | undefined;
  content: string;
  text: string;
  reasoning: string;
  toolCalls: Map<number, { id?: string; type?: string; function: { name: string; arguments: string } }>;
  finishReason: string | null;
  hasText: boolean;
}

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Choices and tool calls an answer is folded with at most, all together (OpenAI's `n` is at most 128; a stream naming
 * more is not an answer any client asked for): one past it is left out, and the answer marked as cut.
 */
export const MAX_FOLDED_PARTS = 4096;

/** One choice's delta folded in; its text goes through the folder's limit (`admit`). */
function foldDelta(state: ChoiceState, delta: Json, folder: ChunkFolder): void {
  if (typeof delta.role === 'string') state.role = delta.role;
  if (typeof delta.content === 'string') state.content += folder.admit(delta.content);
  if (typeof delta.reasoning_content === 'string') state.reasoning += folder.admit(delta.reasoning_content);
  if (!Array.isArray(delta.tool_calls)) return;
  for (const call of delta.tool_calls) {
    if (!isObject(call)) continue;
    const at = typeof call.index === 'number' ? call.index : state.toolCalls.size;
    let known = state.toolCalls.get(at);
    if (!known) {
      if (!folder.newPart()) continue;
      known = { function: { name: '', arguments: '' } };
    }
    if (typeof call.id === 'string') known.id = call.id;
    if (typeof call.type === 'string') known.type = call.type;
    const fn = isObject(call.function) ? call.function : {};
    if (typeof fn.name === 'string') known.function.name += folder.admit(fn.name);
    if (typeof fn.arguments === 'string') known.function.arguments += folder.admit(fn.arguments);
    state.toolCalls.set(at, known);
  }
}

function choiceView(state: ChoiceState): Json {
  if (state.hasText) return { index: state.index, text: state.text, finish_reason: state.finishReason };
  const message: Json = { role: state.role ?? 'assistant', content: state.content };
  if (state.reasoning) message.reasoning_content = state.reasoning;
  if (state.toolCalls.size > 0) {
    message.tool_calls = [...state.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => ({ ...call, type: call.type ?? 'function' }));
  }
  return { index: state.index, message, finish_reason: state.finishReason };
}

/**
 * Chunks folded into one answer as they are added: a stream's chunks can be given in parts (the request log folds a
 * long stream a part at a time, so it never holds the whole stream), and `answer()` is what they fold into so far.
 * `limit`: the characters of text (contents, reasoning, tool names and arguments) kept at most; `overflowed` says some
 * was left out (text past the limit, or choices and tool calls past MAX_FOLDED_PARTS).
 */
export class ChunkFolder {
  private readonly choices = new Map<number, ChoiceState>();
  private head: Json | undefined;
  private usage: unknown;
  private textCompletion = false;
  private readonly text: TextLimit;
  private parts = 0;

  constructor(limit = Infinity) {
    this.text = new TextLimit(limit);
  }

  /** some text was left out (the limit) */
  get overflowed(): boolean {
    return this.text.overflowed;
  }

  /** whether any chunk so far was an OpenAI chunk (one with a `choices` list) */
  get folding(): boolean {
    return this.head !== undefined;
  }

  /** `text` as far as the limit lets it in */
  admit(text: string): string {
    return this.text.admit(text);
  }

  /** room for one more choice or tool call: false (and the answer marked as cut) past MAX_FOLDED_PARTS */
  newPart(): boolean {
    if (this.parts >= MAX_FOLDED_PARTS) {
      this.text.leaveOut();
      return false;
    }
    this.parts += 1;
    return true;
  }

  private choice(index: number): ChoiceState | undefined {
    let state = this.choices.get(index);
    if (!state && this.newPart()) {
      state = { index, role: undefined, content: '', text: '', reasoning: '', toolCalls: new Map(), finishReason: null, hasText: false };
      this.choices.set(index, state);
    }
    return state;
  }

  add(chunk: unknown): void {
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) {
      if (isObject(chunk) && isObject(chunk.usage)) this.usage = chunk.usage;
      return;
    }
    this.head ??= chunk;
    if (chunk.object === 'text_completion') this.textCompletion = true;
    if (isObject(chunk.usage)) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (!isObject(choice)) continue;
      const state = this.choice(typeof choice.index === 'number' ? choice.index : 0);
      if (!state) continue;
      if (typeof choice.text === 'string') {
        state.text += this.admit(choice.text);
        state.hasText = true;
      }
      if (isObject(choice.delta)) foldDelta(state, choice.delta, this);
      if (typeof choice.finish_reason === 'string') state.finishReason = choice.finish_reason;
    }
  }

  addAll(chunks: Iterable<unknown>): void {
    for (const chunk of chunks) this.add(chunk);
  }

  /** The answer so far; undefined when none of the chunks looked like an OpenAI chunk. */
  answer(): Json | undefined {
    const head = this.head;
    if (!head) return undefined;
    const answer: Json = {
      id: head.id,
      object: this.textCompletion ? 'text_completion' : 'chat.completion',
      created: head.created,
      model: head.model,
      choices: [...this.choices.values()].sort((a, b) => a.index - b.index).map(choiceView),
    };
    if (this.usage !== undefined) answer.usage = this.usage;
    return answer;
  }
}

/** Folds chunks into one answer; undefined when none of them looks like an OpenAI chunk. */
export function reassembleChunks(chunks: readonly unknown[]): Json | undefined {
  const folder = new ChunkFolder();
  folder.addAll(chunks);
  return folder.answer();
}
