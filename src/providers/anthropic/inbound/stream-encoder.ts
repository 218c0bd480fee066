/**
 * Canonical chat.completion.chunk objects -> the Anthropic Messages stream, event by event:
 *   message_start, ping, then per content block content_block_start, content_block_delta..., content_block_stop,
 *   then message_delta (stop_reason, usage) and message_stop.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 *
 * A state machine: one block is open at a time, numbered from 0 in the order it opens (thinking, text, tool_use),
 * and never renumbered. A tool call's arguments go out as input_json_delta on the block its call opened, so the
 * client assembles exactly the arguments the provider streamed. A provider that interleaves two calls' arguments
 * gets the late pieces on the earlier call's (already stopped) index: the input still assembles exactly.
 * Each event object carries its `type`, which the writer also names in the SSE `event:` line.
 */
import type { ChatCompletionChunk, Usage } from '../../../core/openai-types.ts';
import { isRecord, type JsonRecord } from '../../shared/json.ts';
import { toolUseId } from '../messages.ts';
import { messageIdOf, messagesUsageOf, stopReasonOf } from './answer.ts';

export interface MessagesStreamEncoder {
  /** events for one canonical chunk */
  push(chunk: unknown): JsonRecord[];
  /** the closing events: the open block's stop, message_delta, message_stop */
  end(): JsonRecord[];
}

type OpenBlock = { kind: 'text' | 'thinking' | 'redacted'; index: number } | { kind: 'tool'; index: number; call: number };

export function createMessagesStreamEncoder(options: { model: string }): MessagesStreamEncoder {
  let started = false;
  let next = 0;
  let open: OpenBlock | undefined;
  /** the provider's tool call index -> its block index */
  const tools = new Map<number, number>();
  let finish: unknown = null;
  let native: unknown;
  let usage: Usage | null | undefined;

  const start = (chunk: Partial<ChatCompletionChunk>, out: JsonRecord[]) => {
    if (started) return;
    started = true;
    out.push({
      type: 'message_start',
      message: {
        id: messageIdOf(chunk.id),
        type: 'message',
        role: 'assistant',
        model: typeof chunk.model === 'string' && chunk.model !== '' ? chunk.model : options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
    out.push({ type: 'ping' });
  };
  const close = (out: JsonRecord[]) => {
    if (open) out.push({ type: 'content_block_stop', index: open.index });
    open = undefined;
  };
  const openBlock = (block: OpenBlock, contentBlock: JsonRecord, out: JsonRecord[]) => {
    close(out);
    open = block;
    out.push({ type: 'content_block_start', index: block.index, content_block: contentBlock });
  };
  const delta = (index: number, body: JsonRecord, out: JsonRecord[]) => out.push({ type: 'content_block_delta', index, delta: body });

  const thinking = (piece: JsonRecord, out: JsonRecord[]) => {
    if (typeof piece.data === 'string') {
      // a redacted block arrives whole
      openBlock({ kind: 'redacted', index: next++ }, { type: 'redacted_thinking', data: piece.data }, out);
      return;
    }
    if (open?.kind !== 'thinking') openBlock({ kind: 'thinking', index: next++ }, { type: 'thinking', thinking: '', signature: '' }, out);
    const index = open!.index;
    if (typeof piece.thinking === 'string' && piece.thinking !== '') delta(index, { type: 'thinking_delta', thinking: piece.thinking }, out);
    if (typeof piece.signature === 'string' && piece.signature !== '') delta(index, { type: 'signature_delta', signature: piece.signature }, out);
  };
  const text = (piece: string, out: JsonRecord[]) => {
    if (open?.kind !== 'text') openBlock({ kind: 'text', index: next++ }, { type: 'text', text: '' }, out);
    delta(open!.index, { type: 'text_delta', text: piece }, out);
  };
  const tool = (call: JsonRecord, position: number, out: JsonRecord[]) => {
    const callIndex = typeof call.index === 'number' ? call.index : position;
    const fn = isRecord(call.function) ? call.function : {};
    let index = tools.get(callIndex);
    if (index === undefined) {
      index = next++;
      tools.set(callIndex, index);
      const id = typeof call.id === 'string' && call.id !== '' ? toolUseId(call.id) : `toolu_${index}`;
      openBlock({ kind: 'tool', index, call: callIndex }, { type: 'tool_use', id, name: typeof fn.name === 'string' ? fn.name : '', input: {} }, out);
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '') delta(index, { type: 'input_json_delta', partial_json: fn.arguments }, out);
  };

  return {
    push(chunk) {
      const out: JsonRecord[] = [];
      if (!isRecord(chunk)) return out;
      start(chunk as Partial<ChatCompletionChunk>, out);
      if (isRecord(chunk.usage)) usage = chunk.usage as unknown as Usage;
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const choice = choices.find((item) => isRecord(item) && (item.index ?? 0) === 0);
      if (!isRecord(choice)) return out;
      const body = isRecord(choice.delta) ? choice.delta : {};
      if (Array.isArray(body.content_blocks)) {
        for (const block of body.content_blocks) if (isRecord(block) && isRecord(block.delta)) thinking(block.delta, out);
      }
      if (typeof body.content === 'string' && body.content !== '') text(body.content, out);
      if (Array.isArray(body.tool_calls)) body.tool_calls.forEach((call, position) => isRecord(call) && tool(call, position, out));
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason;
      if (typeof choice.native_finish_reason === 'string') native = choice.native_finish_reason;
      return out;
    },
    end() {
      const out: JsonRecord[] = [];
      start({}, out);
      close(out);
      const stop = stopReasonOf(finish, native) ?? (tools.size > 0 ? 'tool_use' : 'end_turn');
      out.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: messagesUsageOf(usage) });
      out.push({ type: 'message_stop' });
      return out;
    },
  };
}
