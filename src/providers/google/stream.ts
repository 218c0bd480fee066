/**
 * Gemini `streamGenerateContent?alt=sse` events -> OpenAI chat.completion.chunk objects (Gemini API and Vertex AI).
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * Each SSE `data:` is a whole GenerateContentResponse carrying the next slice of each candidate. Function calls
 * arrive whole in one event, so each becomes one tool_calls delta with its complete arguments. Every event
 * repeats the running usageMetadata; the last one is sent in a final chunk without choices when the client asked
 * for it with stream_options.include_usage, as OpenAI does.
 */
import type { ChatCompletionChunk, ToolCallDelta, Usage } from '../../core/openai-types.ts';
import { badGateway } from '../../core/errors.ts';
import type { StreamDecoder, StreamEvent } from '../contract.ts';
import { streamErrorOf } from './errors.ts';
import { isRecord } from '../shared/json.ts';
import { createdOf, finishReasonOf, partsOf, toolCallOf, usageOf } from './response.ts';

export interface GeminiStreamOptions {
  model: string;
  provider: string;
  strictReferenceCompliance: boolean;
  includeUsage: boolean;
  now: number;
  fallbackId: string;
}

type Chunk = ChatCompletionChunk;
type Delta = Chunk['choices'][number]['delta'];
type BlockDelta = NonNullable<Delta['content_blocks']>[number];

interface CandidateState {
  started: boolean;
  toolCalls: number;
  finished: boolean;
  /** content_blocks bookkeeping (non-strict mode): the open block's index and kind */
  block: number;
  blockKind: 'thinking' | 'text' | undefined;
  sawThinking: boolean;
}

export function createGeminiStreamDecoder(options: GeminiStreamOptions): StreamDecoder {
  let id: string | undefined;
  let created = options.now;
  let model = options.model;
  let usage: Usage | undefined;
  const candidates = new Map<number, CandidateState>();

  const chunk = (choices: Chunk['choices']): Chunk => ({
    id: id ?? options.fallbackId,
    object: 'chat.completion.chunk',
    created,
    model,
    provider: options.provider,
    choices,
  });

  const stateOf = (index: number): CandidateState => {
    let state = candidates.get(index);
    if (!state) {
      state = { started: false, toolCalls: 0, finished: false, block: -1, blockKind: undefined, sawThinking: false };
      candidates.set(index, state);
    }
    return state;
  };

  const blockDelta = (state: CandidateState, kind: 'thinking' | 'text', delta: BlockDelta['delta']): BlockDelta => {
    if (state.blockKind !== kind) {
      state.block += 1;
      state.blockKind = kind;
    }
    return { index: state.block, delta };
  };

  function deltaOf(candidate: Record<string, unknown>, state: CandidateState): Delta {
    const delta: Delta = {};
    let text = '';
    const blocks: BlockDelta[] = [];
    const toolCalls: ToolCallDelta[] = [];
    const keepThinking = !options.strictReferenceCompliance;
    for (const part of partsOf(candidate)) {
      if (part.thought === true) {
        if (!keepThinking) continue;
        state.sawThinking = true;
        const signature = typeof part.thoughtSignature === 'string' ? { signature: part.thoughtSignature } : {};
        blocks.push(blockDelta(state, 'thinking', { thinking: typeof part.text === 'string' ? part.text : '', ...signature }));
      } else if (typeof part.text === 'string') {
        text += part.text;
        if (state.sawThinking && part.text !== '') blocks.push(blockDelta(state, 'text', { text: part.text }));
      } else {
        const call = toolCallOf(part, state.toolCalls);
        if (!call) continue;
        toolCalls.push({ index: state.toolCalls, ...call });
        state.toolCalls += 1;
      }
    }
    if (!state.started) {
      delta.role = 'assistant';
      state.started = true;
    }
    if (text !== '') delta.content = text;
    if (blocks.length > 0) delta.content_blocks = blocks;
    if (toolCalls.length > 0) delta.tool_calls = toolCalls;
    return delta;
  }

  function push(event: StreamEvent): unknown[] {
    if (event.data.trim() === '' || event.data.trim() === '[DONE]') return [];
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      throw badGateway(`A Gemini stream event is not JSON: ${event.data.slice(0, 200)}`);
    }
    const failure = streamErrorOf(json);
    if (failure) throw failure;
    if (!isRecord(json)) throw badGateway('A Gemini stream event is not a JSON object.');
    if (id === undefined) {
      if (typeof json.responseId === 'string') id = json.responseId;
      created = createdOf(json, options.now);
      if (typeof json.modelVersion === 'string') model = json.modelVersion;
    }
    usage = usageOf(json.usageMetadata) ?? usage;
    const out: Chunk[] = [];
    const list = Array.isArray(json.candidates) ? json.candidates.filter(isRecord) : [];
    list.forEach((candidate, position) => {
      const index = typeof candidate.index === 'number' ? candidate.index : position;
      const state = stateOf(index);
      const delta = deltaOf(candidate, state);
      if (Object.keys(delta).length > 0) out.push(chunk([{ index, delta, logprobs: null, finish_reason: null }]));
      if (typeof candidate.finishReason === 'string' && !state.finished) {
        state.finished = true;
        const reason = finishReasonOf(candidate.finishReason, state.toolCalls > 0);
        out.push(chunk([{ index, delta: {}, logprobs: null, finish_reason: reason, native_finish_reason: candidate.finishReason }]));
      }
    });
    const feedback = json.promptFeedback;
    if (list.length === 0 && isRecord(feedback) && typeof feedback.blockReason === 'string' && !stateOf(0).finished) {
      stateOf(0).finished = true;
      out.push(chunk([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: 'content_filter', native_finish_reason: feedback.blockReason }]));
    }
    return out;
  }

  return {
    push,
    end() {
      if (!options.includeUsage || !usage) return [];
      return [{ ...chunk([]), usage }];
    },
  };
}
