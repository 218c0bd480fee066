/**
 * Bedrock ConverseStream events -> OpenAI chat.completion.chunk objects
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html). Events arrive framed
 * by the aws-event-stream framer: `{event: <event type>, data: <JSON payload>}`, exceptions as `exception:<type>`.
 * Order: messageStart, (contentBlockStart?, contentBlockDelta*, contentBlockStop)*, messageStop, metadata.
 */
import { badGateway } from '../../core/errors.ts';
import type { ChatCompletionChunk } from '../../core/openai-types.ts';
import type { StreamDecoder, StreamEvent } from '../contract.ts';
import { streamError } from './errors.ts';
import { unixSeconds, type Clock } from '../shared/clock.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';
import { finishReasonOf, usageOf } from './response.ts';

type Choice = ChatCompletionChunk['choices'][number];
type Delta = Choice['delta'];

export interface StreamOptions {
  model: string;
  includeUsage: boolean;
  strict: boolean;
}

export function createConverseStreamDecoder(options: StreamOptions, clock: Clock): StreamDecoder {
  const id = `chatcmpl-${clock.newId()}`;
  const created = unixSeconds(clock);
  /** Converse content block index -> OpenAI tool call index (0, 1, ... in order of appearance) */
  const toolIndexes = new Map<number, number>();
  let stopped = false;

  const chunk = (choices: Choice[], extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: options.model,
    choices,
    ...extra,
  });
  const deltaChunk = (delta: Delta): ChatCompletionChunk => chunk([{ index: 0, delta, finish_reason: null }]);

  function blockIndex(payload: JsonRecord): number {
    return typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : 0;
  }

  function onBlockStart(payload: JsonRecord): ChatCompletionChunk[] {
    const start = isRecord(payload.start) ? payload.start : {};
    if (!isRecord(start.toolUse)) return [];
    const { toolUseId, name } = start.toolUse;
    if (typeof toolUseId !== 'string' || typeof name !== 'string') throw new Error('a toolUse start lacks its id or name');
    const index = toolIndexes.size;
    toolIndexes.set(blockIndex(payload), index);
    return [deltaChunk({ tool_calls: [{ index, id: toolUseId, type: 'function', function: { name, arguments: '' } }] })];
  }

  function onBlockDelta(payload: JsonRecord): ChatCompletionChunk[] {
    const delta = isRecord(payload.delta) ? payload.delta : {};
    if (typeof delta.text === 'string') return [deltaChunk({ content: delta.text })];
    if (isRecord(delta.toolUse)) {
      const index = toolIndexes.get(blockIndex(payload));
      if (index === undefined) throw new Error('tool input arrived for a block that was not started as a toolUse');
      const fragment = typeof delta.toolUse.input === 'string' ? delta.toolUse.input : '';
      return [deltaChunk({ tool_calls: [{ index, function: { arguments: fragment } }] })];
    }
    if (isRecord(delta.reasoningContent) && !options.strict) {
      const reasoning = delta.reasoningContent;
      const index = blockIndex(payload);
      if (typeof reasoning.text === 'string') return [deltaChunk({ content_blocks: [{ index, delta: { type: 'thinking', thinking: reasoning.text } }] })];
      if (typeof reasoning.signature === 'string') return [deltaChunk({ content_blocks: [{ index, delta: { type: 'thinking', signature: reasoning.signature } }] })];
      if (typeof reasoning.redactedContent === 'string') {
        return [deltaChunk({ content_blocks: [{ index, delta: { type: 'redacted_thinking', data: reasoning.redactedContent } }] })];
      }
    }
    return [];
  }

  function onMessageStop(payload: JsonRecord): ChatCompletionChunk[] {
    stopped = true;
    const raw = typeof payload.stopReason === 'string' ? payload.stopReason : undefined;
    if (raw === undefined) throw new Error('messageStop without a stopReason');
    return [chunk([{ index: 0, delta: {}, finish_reason: finishReasonOf(raw), native_finish_reason: raw }])];
  }

  function onMetadata(payload: JsonRecord): ChatCompletionChunk[] {
    const usage = usageOf(payload.usage);
    return options.includeUsage && usage ? [chunk([], { usage })] : [];
  }

  return {
    push(event: StreamEvent): unknown[] {
      const type = event.event ?? '';
      if (type.startsWith('exception:') || type.startsWith('error:')) throw streamError(type, event.data);
      const payload: unknown = JSON.parse(event.data);
      if (!isRecord(payload)) throw new Error(`the ${type} event is not a JSON object`);
      switch (type) {
        case 'messageStart':
          return [deltaChunk({ role: 'assistant', content: '' })];
        case 'contentBlockStart':
          return onBlockStart(payload);
        case 'contentBlockDelta':
          return onBlockDelta(payload);
        case 'messageStop':
          return onMessageStop(payload);
        case 'metadata':
          return onMetadata(payload);
        default:
          // contentBlockStop and event types added later carry nothing a chunk needs
          return [];
      }
    },
    end(): unknown[] {
      if (!stopped) throw badGateway('The Bedrock stream ended before its messageStop event.', 'stream_interrupted');
      return [];
    },
  };
}
