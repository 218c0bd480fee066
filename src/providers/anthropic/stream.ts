/**
 * Anthropic Messages stream (SSE) -> OpenAI chat.completion.chunk objects.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * Events: message_start, content_block_start / _delta / _stop (text_delta, input_json_delta, thinking_delta,
 * signature_delta), message_delta (stop_reason, cumulative usage), message_stop, ping, error.
 *
 * Invariants: the first chunk carries the assistant role; every tool call gets its OpenAI index in order of
 * appearance, its id and name once, then its argument fragments exactly as sent; usage goes out once, in a last
 * chunk with no choices, and only when the client asked for it (stream_options.include_usage).
 */
import { badGateway } from '../../core/errors.ts';
import type { ChatCompletionChunk, Usage } from '../../core/openai-types.ts';
import type { StreamDecoder, StreamEvent } from '../contract.ts';
import { streamError } from './errors.ts';
import { systemClock, unixSeconds } from '../shared/clock.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';
import { finishReasonOf, usageOf } from './response.ts';

export interface StreamOptions {
  /** false: thinking, signature and redacted thinking go out as content_blocks deltas */
  strictReferenceCompliance: boolean;
  /** stream_options.include_usage */
  includeUsage: boolean;
  provider: string;
  created?: number;
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

function parse(event: StreamEvent): JsonRecord {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw badGateway(`Anthropic sent a stream event that is not JSON (${event.event ?? 'no event name'}).`, 'stream_interrupted');
  }
  if (!isRecord(data)) throw badGateway('Anthropic sent a stream event that is not an object.', 'stream_interrupted');
  return data;
}

export function createAnthropicStreamDecoder(options: StreamOptions): StreamDecoder {
  const created = options.created ?? unixSeconds(systemClock);
  const extras = !options.strictReferenceCompliance;
  let id = '';
  let model = '';
  let usage: JsonRecord = {};
  let stopped = false;
  /** Anthropic content block index -> OpenAI tool call index, or thinking block index in content_blocks */
  const tools = new Map<number, number>();
  const thinking = new Map<number, number>();

  const chunk = (delta: Delta, finish?: string): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    provider: options.provider,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish === undefined ? null : finishReasonOf(finish),
        ...(finish === undefined ? {} : { native_finish_reason: finish }),
      },
    ],
  });

  const thinkingDelta = (index: number, delta: JsonRecord): ChatCompletionChunk[] =>
    extras && thinking.has(index) ? [chunk({ content_blocks: [{ index: thinking.get(index) ?? 0, delta }] })] : [];

  function blockStart(index: number, block: JsonRecord): ChatCompletionChunk[] {
    switch (block.type) {
      case 'text':
        return typeof block.text === 'string' && block.text !== '' ? [chunk({ content: block.text })] : [];
      case 'tool_use': {
        const toolIndex = tools.size;
        tools.set(index, toolIndex);
        const name = typeof block.name === 'string' ? block.name : '';
        const callId = typeof block.id === 'string' ? block.id : '';
        return [chunk({ tool_calls: [{ index: toolIndex, id: callId, type: 'function', function: { name, arguments: '' } }] })];
      }
      case 'thinking':
        thinking.set(index, thinking.size);
        return typeof block.thinking === 'string' && block.thinking !== '' ? thinkingDelta(index, { type: 'thinking', thinking: block.thinking }) : [];
      case 'redacted_thinking':
        thinking.set(index, thinking.size);
        return typeof block.data === 'string' ? thinkingDelta(index, { type: 'redacted_thinking', data: block.data }) : [];
      default:
        // server tool blocks (web search, code execution) run at Anthropic: nothing for the client to call
        return [];
    }
  }

  function blockDelta(index: number, delta: JsonRecord): ChatCompletionChunk[] {
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text !== '' ? [chunk({ content: delta.text })] : [];
      case 'input_json_delta': {
        const toolIndex = tools.get(index);
        if (toolIndex === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return [];
        return [chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] })];
      }
      case 'thinking_delta':
        return typeof delta.thinking === 'string' ? thinkingDelta(index, { type: 'thinking', thinking: delta.thinking }) : [];
      case 'signature_delta':
        return typeof delta.signature === 'string' ? thinkingDelta(index, { type: 'thinking', signature: delta.signature }) : [];
      default:
        return [];
    }
  }

  function usageChunk(): ChatCompletionChunk[] {
    const total: Usage | undefined = usageOf(usage);
    if (!options.includeUsage || !total) return [];
    return [{ id, object: 'chat.completion.chunk', created, model, provider: options.provider, choices: [], usage: total }];
  }

  /** message_delta usage is cumulative: its counts replace those of message_start; nulls leave them as they were. */
  function mergeUsage(next: unknown): void {
    if (!isRecord(next)) return;
    const merged: JsonRecord = { ...usage };
    for (const [key, value] of Object.entries(next)) if (value !== null && value !== undefined) merged[key] = value;
    usage = merged;
  }

  return {
    push(event: StreamEvent): unknown[] {
      const data = parse(event);
      const type = typeof data.type === 'string' ? data.type : event.event;
      const index = typeof data.index === 'number' ? data.index : -1;
      switch (type) {
        case 'message_start': {
          const message = isRecord(data.message) ? data.message : {};
          if (typeof message.id === 'string') id = message.id;
          if (typeof message.model === 'string') model = message.model;
          mergeUsage(message.usage);
          return [chunk({ role: 'assistant', content: '' })];
        }
        case 'content_block_start':
          return isRecord(data.content_block) ? blockStart(index, data.content_block) : [];
        case 'content_block_delta':
          return isRecord(data.delta) ? blockDelta(index, data.delta) : [];
        case 'message_delta': {
          mergeUsage(data.usage);
          const stopReason = isRecord(data.delta) ? data.delta.stop_reason : undefined;
          return typeof stopReason === 'string' ? [chunk({}, stopReason)] : [];
        }
        case 'message_stop':
          stopped = true;
          return usageChunk();
        case 'error':
          throw streamError(data);
        default:
          // ping, content_block_stop and event types Anthropic may add later carry nothing for the client
          return [];
      }
    },
    end(): unknown[] {
      if (!stopped) throw badGateway('The Anthropic stream ended before message_stop.', 'stream_interrupted');
      return [];
    },
  };
}
