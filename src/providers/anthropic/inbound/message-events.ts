/**
 * A Message and the Messages event stream, each from the other, for the response cache: a native stream is
 * assembled into the Message it streamed (stored), and a stored Message is replayed as the events Anthropic would
 * have sent for it (message_start, ping, per block content_block_start / _delta / _stop, message_delta with the
 * stop reason and usage, message_stop). Thinking and its signature, tool input and citations come back exactly.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import { TextLimit } from '../../../core/text-limit.ts';
import type { DeltaShape } from '../../shared/delta-shape.ts';
import { isRecord, type JsonRecord } from '../../shared/json.ts';

/**
 * A `content_block_delta` whose delta is `{"type": "text_delta", "text": "..."}`: what most of a Messages stream is,
 * one event a piece of text (the request log reads them from a template, src/logging/sse-events.ts, rather than
 * parsing each).
 */
export const TEXT_DELTA: DeltaShape = {
  key: 'text',
  text(event) {
    if (!isRecord(event) || event.type !== 'content_block_delta' || !isRecord(event.delta)) return undefined;
    const { delta } = event;
    return delta.type === 'text_delta' && typeof delta.text === 'string' && Object.keys(delta).length === 2 ? delta.text : undefined;
  },
  with(event, text) {
    return { ...event, delta: { type: 'text_delta', text } };
  },
};

interface BlockState {
  block: JsonRecord;
  /** a tool block's input as streamed: JSON text, parsed at the end */
  json: string | undefined;
}

function applyDelta(state: BlockState, delta: JsonRecord, limit: TextLimit): void {
  const block = state.block;
  const append = (field: string, piece: string) => {
    block[field] = `${typeof block[field] === 'string' ? (block[field] as string) : ''}${piece}`;
  };
  // a piece that would be no piece at all if cut (a signature, a tool's input, a citation) counts against the limit
  // whole; past it the Message is not assembled (the log keeps its first events instead)
  const whole = (length: number) => {
    if (!limit.fits(length)) throw new Error('past the limit');
  };
  switch (delta.type) {
    case 'text_delta':
      if (typeof delta.text === 'string') append('text', limit.admit(delta.text));
      return;
    case 'thinking_delta':
      if (typeof delta.thinking === 'string') append('thinking', limit.admit(delta.thinking));
      return;
    case 'signature_delta':
      if (typeof delta.signature === 'string') {
        whole(delta.signature.length);
        append('signature', delta.signature);
      }
      return;
    case 'input_json_delta': {
      const piece = typeof delta.partial_json === 'string' ? delta.partial_json : '';
      whole(piece.length);
      state.json = (state.json ?? '') + piece;
      return;
    }
    case 'citations_delta':
      if (limit.bounded) whole(JSON.stringify(delta.citation ?? null).length);
      // the block's own list (content_block_start's was copied), added to in place: a long list is not copied anew
      // for each citation
      if (!Array.isArray(block.citations)) block.citations = [];
      (block.citations as unknown[]).push(delta.citation);
      return;
    default:
      // a delta this gateway does not know: the block cannot be rebuilt exactly
      throw new Error(`unknown content_block_delta type ${String(delta.type)}`);
  }
}

function finished(state: BlockState): JsonRecord {
  if (state.json === undefined) return state.block;
  return { ...state.block, input: state.json.trim() === '' ? {} : (JSON.parse(state.json) as unknown) };
}

/** blocks a Message is assembled with at most (Anthropic's have a handful; a stream of more is logged as events) */
const MAX_BLOCKS = 4096;

/**
 * A native Messages stream's events (parsed objects) assembled as they are added, into the Message they carry.
 * `limit`: the characters kept at most (the request log folds a stream of any length into a bounded Message). Text
 * and thinking past it are cut, and `overflowed` says so. What cannot be cut counts whole: a signature, a tool's
 * input, a citation, a block as it starts (JSON characters); one past the limit leaves the Message unassembled.
 * At most MAX_BLOCKS blocks are assembled.
 */
export class MessageAssembler {
  private current: JsonRecord | undefined;
  private readonly blocks = new Map<number, BlockState>();
  private stopped = false;
  /** an event that cannot be assembled (an error, an unknown event or delta, a delta without its block) */
  private broken = false;
  private readonly text: TextLimit;

  constructor(limit = Infinity) {
    this.text = new TextLimit(limit);
  }

  /** some text or thinking was left out (the limit) */
  get overflowed(): boolean {
    return this.text.overflowed;
  }

  add(event: unknown): void {
    if (this.broken) return;
    try {
      if (!this.apply(event)) this.broken = true;
    } catch {
      this.broken = true;
    }
  }

  private apply(event: unknown): boolean {
    if (!isRecord(event)) return false;
    const index = typeof event.index === 'number' ? event.index : -1;
    switch (event.type) {
      case 'message_start':
        if (!isRecord(event.message)) return false;
        this.current = { ...event.message };
        return true;
      case 'content_block_start': {
        const start = event.content_block;
        if (!isRecord(start) || (!this.blocks.has(index) && this.blocks.size >= MAX_BLOCKS)) return false;
        if (this.text.bounded && !this.text.fits(JSON.stringify(start).length)) return false;
        const block = { ...start };
        if (Array.isArray(block.citations)) block.citations = [...(block.citations as unknown[])];
        this.blocks.set(index, { block, json: undefined });
        return true;
      }
      case 'content_block_delta': {
        const state = this.blocks.get(index);
        if (!state || !isRecord(event.delta)) return false;
        applyDelta(state, event.delta, this.text);
        return true;
      }
      case 'message_delta': {
        const message = this.current;
        if (!message) return false;
        if (isRecord(event.delta)) Object.assign(message, event.delta);
        if (isRecord(event.usage)) message.usage = { ...(isRecord(message.usage) ? message.usage : {}), ...event.usage };
        return true;
      }
      case 'message_stop':
        this.stopped = true;
        return true;
      case 'content_block_stop':
      case 'ping':
        return true;
      default:
        return false;
    }
  }

  /** The Message; undefined when the stream is not a whole, successful one (no message_stop, or a broken event). */
  message(): JsonRecord | undefined {
    if (this.broken || !this.current || !this.stopped) return undefined;
    try {
      const content = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, state]) => finished(state));
      return { ...this.current, content };
    } catch {
      return undefined;
    }
  }
}

/**
 * The Message a native Messages stream carried (its events as parsed objects); undefined when the stream is not a
 * whole, successful one (no message_stop, an error event, an unknown event or delta).
 */
export function assembleMessage(events: Iterable<unknown>): JsonRecord | undefined {
  const assembler = new MessageAssembler();
  for (const event of events) assembler.add(event);
  return assembler.message();
}

/** The block as content_block_start opens it, and the deltas that complete it. */
function blockEvents(block: JsonRecord): { start: JsonRecord; deltas: JsonRecord[] } {
  const { citations, ...rest } = block;
  const cited = Array.isArray(citations) ? citations.map((citation) => ({ type: 'citations_delta', citation })) : [];
  switch (block.type) {
    case 'text':
      return {
        start: { ...rest, text: '', ...(Array.isArray(citations) ? { citations: [] } : {}) },
        deltas: [...cited, ...(block.text ? [{ type: 'text_delta', text: block.text }] : [])],
      };
    case 'thinking':
      return {
        start: { ...block, thinking: '', signature: '' },
        deltas: [
          ...(block.thinking ? [{ type: 'thinking_delta', thinking: block.thinking }] : []),
          ...(block.signature ? [{ type: 'signature_delta', signature: block.signature }] : []),
        ],
      };
    case 'tool_use':
    case 'server_tool_use': {
      const input = block.input === undefined ? {} : block.input;
      const text = JSON.stringify(input);
      return { start: { ...block, input: {} }, deltas: text === '{}' ? [] : [{ type: 'input_json_delta', partial_json: text }] };
    }
    default:
      // redacted thinking, tool results: sent whole in their start event, as Anthropic does
      return { start: block, deltas: [] };
  }
}

/** The events that stream a stored Message, each with its `type` (the writer names it in the SSE `event:` line). */
export function messageEvents(message: JsonRecord): JsonRecord[] {
  const usage = isRecord(message.usage) ? message.usage : {};
  const content = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  const events: JsonRecord[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } },
    { type: 'ping' },
  ];
  content.forEach((block, index) => {
    const { start, deltas } = blockEvents(block);
    events.push({ type: 'content_block_start', index, content_block: start });
    for (const delta of deltas) events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason ?? 'end_turn', stop_sequence: message.stop_sequence ?? null },
    usage,
  });
  events.push({ type: 'message_stop' });
  return events;
}

export function isMessage(value: unknown): value is JsonRecord {
  return isRecord(value) && value.type === 'message' && Array.isArray(value.content);
}
