/**
 * Gemini GenerateContentResponse -> OpenAI chat.completion (shared by the Gemini API and Vertex AI).
 * https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
 * https://ai.google.dev/api/generate-content#FinishReason
 * https://ai.google.dev/api/generate-content#UsageMetadata
 * https://ai.google.dev/gemini-api/docs/thinking#summaries (parts with `thought: true`)
 */
import type { ChatCompletion, ContentBlock, FinishReason, ToolCall, Usage } from '../../core/openai-types.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';

const FILTERED = new Set([
  'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION', 'MODEL_ARMOR',
]);

/** STOP with function calls is OpenAI's tool_calls; the other reasons without an OpenAI twin count as a stop. */
export function finishReasonOf(raw: string, hasToolCalls: boolean): FinishReason {
  if (raw === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(raw)) return 'content_filter';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

const count = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/**
 * Gemini's usageMetadata -> OpenAI usage. Thought tokens are output tokens (billed as such): they count in
 * completion_tokens and are shown again as reasoning_tokens. Cached tokens are part of promptTokenCount, as in
 * OpenAI. Gemini's JSON leaves zero counts out (proto3), so an absent count in a present usageMetadata is 0;
 * without a prompt or total count the usage is unknown and left out.
 */
export function usageOf(metadata: unknown): Usage | undefined {
  if (!isRecord(metadata)) return undefined;
  const prompt = count(metadata.promptTokenCount);
  const total = count(metadata.totalTokenCount);
  if (prompt === undefined && total === undefined) return undefined;
  const toolPrompt = count(metadata.toolUsePromptTokenCount) ?? 0;
  const thoughts = count(metadata.thoughtsTokenCount);
  const cached = count(metadata.cachedContentTokenCount);
  const promptTokens = (prompt ?? 0) + toolPrompt;
  const completionTokens = (count(metadata.candidatesTokenCount) ?? 0) + (thoughts ?? 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: total ?? promptTokens + completionTokens,
    ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    ...(thoughts !== undefined ? { completion_tokens_details: { reasoning_tokens: thoughts } } : {}),
  };
}

/** A functionCall part -> an OpenAI tool call; Gemini's own id when it sends one, else `call_<index>`. */
export function toolCallOf(part: JsonRecord, index: number): ToolCall | undefined {
  const call = part.functionCall;
  if (!isRecord(call) || typeof call.name !== 'string') return undefined;
  return {
    id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(isRecord(call.args) ? call.args : {}) },
    ...(typeof part.thoughtSignature === 'string' ? { thought_signature: part.thoughtSignature } : {}),
  };
}

export function partsOf(candidate: JsonRecord): JsonRecord[] {
  const content = candidate.content;
  if (!isRecord(content) || !Array.isArray(content.parts)) return [];
  return content.parts.filter(isRecord);
}

export interface ConvertOptions {
  /** the model the client asked for, used when the answer names none */
  model: string;
  provider: string;
  strictReferenceCompliance: boolean;
  /** seconds since the epoch, for `created` when the answer carries no createTime (Vertex AI does) */
  now: number;
  /** used when the answer carries no responseId */
  fallbackId: string;
}

type Choice = ChatCompletion['choices'][number];

function choiceOf(candidate: JsonRecord, position: number, options: ConvertOptions): Choice {
  const texts: string[] = [];
  const blocks: ContentBlock[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of partsOf(candidate)) {
    if (part.thought === true) {
      blocks.push({ type: 'thinking', thinking: typeof part.text === 'string' ? part.text : '', ...(typeof part.thoughtSignature === 'string' ? { signature: part.thoughtSignature } : {}) });
    } else if (typeof part.text === 'string') {
      texts.push(part.text);
      blocks.push({ type: 'text', text: part.text });
    } else {
      const call = toolCallOf(part, toolCalls.length);
      if (call) toolCalls.push(call);
    }
  }
  const raw = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
  const withThinking = !options.strictReferenceCompliance && blocks.some((block) => block.type === 'thinking');
  return {
    index: typeof candidate.index === 'number' ? candidate.index : position,
    message: {
      role: 'assistant',
      content: texts.length > 0 ? texts.join('') : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(withThinking ? { content_blocks: blocks } : {}),
    },
    logprobs: null,
    finish_reason: raw === undefined ? null : finishReasonOf(raw, toolCalls.length > 0),
    ...(raw !== undefined ? { native_finish_reason: raw } : {}),
  };
}

/** A prompt Gemini blocked has no candidates, only promptFeedback.blockReason: one filtered, empty choice. */
function blockedChoice(json: JsonRecord): Choice | undefined {
  const feedback = json.promptFeedback;
  if (!isRecord(feedback) || typeof feedback.blockReason !== 'string') return undefined;
  return {
    index: 0,
    message: { role: 'assistant', content: null },
    logprobs: null,
    finish_reason: 'content_filter',
    native_finish_reason: feedback.blockReason,
  };
}

export function createdOf(json: JsonRecord, now: number): number {
  const parsed = typeof json.createTime === 'string' ? Date.parse(json.createTime) : Number.NaN;
  return Number.isNaN(parsed) ? now : Math.floor(parsed / 1000);
}

export function fromGeminiResponse(json: unknown, options: ConvertOptions): ChatCompletion {
  if (!isRecord(json) || (!Array.isArray(json.candidates) && !isRecord(json.promptFeedback))) {
    throw new Error('the Gemini answer has neither candidates nor promptFeedback');
  }
  const candidates = Array.isArray(json.candidates) ? json.candidates.filter(isRecord) : [];
  const choices = candidates.map((candidate, position) => choiceOf(candidate, position, options));
  if (choices.length === 0) {
    const blocked = blockedChoice(json);
    if (blocked) choices.push(blocked);
  }
  const usage = usageOf(json.usageMetadata);
  return {
    id: typeof json.responseId === 'string' ? json.responseId : options.fallbackId,
    object: 'chat.completion',
    created: createdOf(json, options.now),
    model: typeof json.modelVersion === 'string' ? json.modelVersion : options.model,
    provider: options.provider,
    choices,
    ...(usage ? { usage } : {}),
  };
}
