/**
 * The legacy OpenAI text completions route, served by the Messages API: the prompt is sent as one user turn and
 * the answer comes back in the `text_completion` shape, streamed or not.
 * https://docs.anthropic.com/en/api/messages
 * Anthropic's own legacy Text Completions API (/v1/complete) only serves retired Claude 2 era models, so it is not
 * used: every current Claude model answers this way.
 */
import { invalidParam } from '../../core/errors.ts';
import type { ChatCompletionChunk } from '../../core/openai-types.ts';
import type { StreamDecoder } from '../contract.ts';
import { droppedParameter } from '../shared/warnings.ts';
import { PROVIDER_EXTRA } from './messages.ts';
import { commonParams, envelope, maxTokensOf, providerOf, warnUnhandled, type AnthropicBody, type MessagesBodyOptions } from './request.ts';
import { answerHead, checkMessage, finishReasonOf, messageParts, usageOf, type ResponseOptions } from './response.ts';
import { createAnthropicStreamDecoder, type StreamOptions } from './stream.ts';

const HANDLED = new Set([
  'model', 'prompt', 'stream', 'stream_options', 'max_tokens', 'temperature', 'top_p', 'stop', 'user', 'n', 'top_k',
  'strict_reference_compliance',
]);

function promptOf(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  if (Array.isArray(prompt) && prompt.every((item) => typeof item === 'string')) {
    throw invalidParam('prompt', 'Anthropic answers one prompt per request: send a single string.');
  }
  throw invalidParam('prompt', 'Anthropic needs the prompt as text, not token ids.');
}

export function toAnthropicCompletionBody(request: Record<string, unknown>, options: MessagesBodyOptions): AnthropicBody {
  const warnings = new Set<string>();
  const provider = providerOf(options);
  const prompt = promptOf(request.prompt);
  const body: Record<string, unknown> = {
    ...envelope({ model: String(request.model) }, options),
    max_tokens: maxTokensOf({ max_tokens: request.max_tokens }, undefined),
    messages: [{ role: 'user', content: prompt }],
    ...commonParams(request, warnings, provider),
  };
  if (!options.strictReferenceCompliance && typeof request.top_k === 'number') body.top_k = request.top_k;
  else if (typeof request.top_k === 'number') warnings.add(droppedParameter(provider, 'top_k', PROVIDER_EXTRA));
  if (request.stream === true) body.stream = true;
  warnUnhandled(request, HANDLED, warnings, provider);
  return { body, warnings: [...warnings] };
}

export function fromAnthropicMessageAsText(json: unknown, options: ResponseOptions): Record<string, unknown> {
  const message = checkMessage(json);
  const { text } = messageParts(message.content);
  const usage = usageOf(message.usage);
  const stopReason = message.stop_reason;
  return {
    ...answerHead(message, 'text_completion', options),
    choices: [
      {
        index: 0,
        text: text ?? '',
        logprobs: null,
        finish_reason: finishReasonOf(stopReason),
        ...(typeof stopReason === 'string' ? { native_finish_reason: stopReason } : {}),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** The chat decoder, its chunks reshaped as text_completion chunks (role and tool deltas have no place there). */
export function createAnthropicTextStreamDecoder(options: StreamOptions): StreamDecoder {
  const chat = createAnthropicStreamDecoder({ ...options, strictReferenceCompliance: true });
  const reshape = (chunks: unknown[]): unknown[] =>
    (chunks as ChatCompletionChunk[]).flatMap((chunk) => {
      const base = { id: chunk.id, object: 'text_completion', created: chunk.created, model: chunk.model, provider: chunk.provider };
      if (chunk.usage) return [{ ...base, choices: [], usage: chunk.usage }];
      const choice = chunk.choices[0];
      if (!choice) return [];
      const text = choice.delta.content ?? '';
      if (text === '' && choice.finish_reason === null) return [];
      return [{
        ...base,
        choices: [{
          index: 0,
          text,
          logprobs: null,
          finish_reason: choice.finish_reason,
          ...(choice.native_finish_reason ? { native_finish_reason: choice.native_finish_reason } : {}),
        }],
      }];
    });
  return { push: (event) => reshape(chat.push(event)), end: () => reshape(chat.end()) };
}
