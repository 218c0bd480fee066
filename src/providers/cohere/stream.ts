/**
 * Cohere v2 chat stream -> OpenAI chat.completion.chunk objects. https://docs.cohere.com/reference/chat-stream
 * and https://docs.cohere.com/v2/docs/streaming. Each SSE event carries a JSON object whose `type` names it:
 * message-start, content-start/-delta/-end (text or thinking), tool-plan-delta, tool-call-start/-delta/-end,
 * citation-start/-end, message-end (finish_reason, usage, error), debug.
 * Tool calls get OpenAI indexes 0, 1, ... in the order they start; Cohere's `index` only finds the call again.
 */
import type { ChatCompletionChunk } from '../../core/openai-types.ts';
import { badGateway } from '../../core/errors.ts';
import type { StreamDecoder, StreamEvent } from '../contract.ts';
import { cohereUsage, finishReason, type ChatContext } from './response.ts';
import { isRecord, numberOf, recordOf, stringOf, type JsonRecord } from '../shared/json.ts';

type Choice = ChatCompletionChunk['choices'][number];
type Delta = Choice['delta'];

export interface StreamContext extends ChatContext {
  includeUsage: boolean;
}

/** delta.message of a Cohere event */
function messageOf(event: JsonRecord): JsonRecord {
  return recordOf(recordOf(event.delta).message);
}

export function createCohereStreamDecoder(context: StreamContext): StreamDecoder {
  let id = '';
  let ended = false;
  const contentKinds = new Map<number, string>();
  const toolIndexes = new Map<number, number>();

  const chunk = (delta: Delta, finish?: { reason: string }): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    provider: context.provider,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish ? finishReason(finish.reason) : null,
        ...(finish ? { native_finish_reason: finish.reason } : {}),
      },
    ],
  });

  function content(event: JsonRecord, starting: boolean): ChatCompletionChunk[] {
    const index = numberOf(event.index) ?? 0;
    const part = recordOf(messageOf(event).content);
    if (starting) contentKinds.set(index, stringOf(part.type) ?? 'text');
    const kind = contentKinds.get(index) ?? (typeof part.thinking === 'string' ? 'thinking' : 'text');
    if (kind === 'thinking') {
      const thinking = stringOf(part.thinking);
      // thinking reaches only clients that opted out of strict OpenAI compliance
      if (context.strict || !thinking) return [];
      return [chunk({ content_blocks: [{ index, delta: { thinking } }] })];
    }
    const text = stringOf(part.text);
    return text ? [chunk({ content: text })] : [];
  }

  function toolCallStart(event: JsonRecord): ChatCompletionChunk[] {
    const call = recordOf(messageOf(event).tool_calls);
    const fn = recordOf(call.function);
    const index = toolIndexes.size;
    toolIndexes.set(numberOf(event.index) ?? index, index);
    return [
      chunk({
        tool_calls: [{ index, id: String(call.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: stringOf(fn.arguments) ?? '' } }],
      }),
    ];
  }

  function toolCallDelta(event: JsonRecord): ChatCompletionChunk[] {
    const cohereIndex = numberOf(event.index) ?? 0;
    const index = toolIndexes.get(cohereIndex);
    if (index === undefined) throw badGateway(`Cohere streamed arguments for tool call ${cohereIndex} before it started.`);
    const args = stringOf(recordOf(recordOf(messageOf(event).tool_calls).function).arguments);
    return args ? [chunk({ tool_calls: [{ index, function: { arguments: args } }] })] : [];
  }

  function messageEnd(event: JsonRecord): ChatCompletionChunk[] {
    ended = true;
    const delta = recordOf(event.delta);
    const error = stringOf(delta.error);
    if (error) throw badGateway(`Cohere ended the stream with an error: ${error}`, 'provider_stream_error');
    const out = [chunk({}, { reason: stringOf(delta.finish_reason) ?? 'COMPLETE' })];
    const usage = cohereUsage(delta.usage);
    if (context.includeUsage && usage) out.push({ ...chunk({}), choices: [], usage });
    return out;
  }

  return {
    push(frame: StreamEvent): unknown[] {
      const data = frame.data.trim();
      if (data === '' || data === '[DONE]') return [];
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        throw badGateway('Cohere sent a stream event that is not JSON.');
      }
      if (!isRecord(event)) throw badGateway('Cohere sent a stream event that is not an object.');
      switch (stringOf(event.type) ?? frame.event) {
        case 'message-start':
          id = String(event.id ?? '');
          return [chunk({ role: 'assistant', content: '' })];
        case 'content-start':
          return content(event, true);
        case 'content-delta':
          return content(event, false);
        case 'tool-plan-delta': {
          // the tool plan is text written before tool calls: OpenAI streams it as content
          const plan = stringOf(messageOf(event).tool_plan);
          return plan ? [chunk({ content: plan })] : [];
        }
        case 'tool-call-start':
          return toolCallStart(event);
        case 'tool-call-delta':
          return toolCallDelta(event);
        case 'message-end':
          return messageEnd(event);
        default:
          // content-end, tool-call-end, citations and debug events carry nothing an OpenAI client reads
          return [];
      }
    },
    end(): unknown[] {
      if (!ended) throw badGateway('The Cohere stream ended before its message-end event.', 'stream_interrupted');
      return [];
    },
  };
}
