/**
 * Azure streams OpenAI's SSE chunks with Azure's content-filter annotations
 * (https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter#streaming). Two Azure habits
 * break clients written against OpenAI (`chunk.choices[0].delta...`), so they are smoothed and nothing else changes:
 * - the first chunk often carries only `prompt_filter_results`, with `choices: []` and an empty id, model and object.
 *   OpenAI never sends a choice-less chunk except the final usage chunk, so it is held back and its
 *   prompt_filter_results ride on the next chunk (sent as it came if no other chunk follows);
 * - annotation chunks (asynchronous filtering) carry choices without `delta`: an empty delta is added.
 * `choices: []` with `usage` is OpenAI's own usage chunk (stream_options.include_usage) and is kept. An empty model is
 * filled from x-gateway-azure-model-name when given. The provider's `data: [DONE]` is dropped: the core writes its own.
 */
import { GatewayError, badGateway } from '../../core/errors.ts';
import type { InferenceCall, ProviderTarget, StreamDecoder, StreamEvent } from '../contract.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';
import { MODEL_NAME_SETTING } from './response.ts';

type Chunk = JsonRecord;

function parseChunk(event: StreamEvent, provider: string): Chunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(event.data);
  } catch {
    throw badGateway(`Provider "${provider}" streamed an event that is not JSON.`, 'stream_interrupted');
  }
  if (!isRecord(chunk)) throw badGateway(`Provider "${provider}" streamed an event that is not a JSON object.`, 'stream_interrupted');
  if (isRecord(chunk.error)) {
    // an error event mid-stream (OpenAI's `{error:{message,code}}`): the provider's message reaches the client
    const message = typeof chunk.error.message === 'string' ? chunk.error.message : `Provider "${provider}" reported a stream error.`;
    const code = typeof chunk.error.code === 'string' ? chunk.error.code : 'provider_stream_error';
    throw new GatewayError(502, 'upstream_error', message, { code });
  }
  return chunk;
}

/** A decoder for streamed chat and text completions; undefined (relay untouched) for anything else. */
export function createAzureStreamDecoder(call: InferenceCall, target: ProviderTarget): StreamDecoder | undefined {
  if (call.route !== 'chat' && call.route !== 'completions') return undefined;
  if (!isRecord(call.body) || call.body.stream !== true) return undefined;
  const modelName = target.cloud[MODEL_NAME_SETTING];
  const chat = call.route === 'chat';
  let held: Chunk | undefined;
  let heldFilters: unknown[] = [];

  const finish = (chunk: Chunk): Chunk => {
    let out = chunk;
    if (modelName && !out.model) out = { ...out, model: modelName };
    if (heldFilters.length > 0 && !('prompt_filter_results' in out)) out = { ...out, prompt_filter_results: heldFilters };
    held = undefined;
    heldFilters = [];
    return out;
  };

  return {
    push(event) {
      if (event.data === '[DONE]') return [];
      const chunk = parseChunk(event, target.provider);
      const choices = chunk.choices;
      if (Array.isArray(choices) && choices.length === 0 && !isRecord(chunk.usage)) {
        held ??= chunk;
        if (Array.isArray(chunk.prompt_filter_results)) heldFilters.push(...chunk.prompt_filter_results);
        return [];
      }
      if (chat && Array.isArray(choices) && choices.some((choice) => isRecord(choice) && !isRecord(choice.delta))) {
        return [finish({ ...chunk, choices: choices.map((choice) => (isRecord(choice) && !isRecord(choice.delta) ? { ...choice, delta: {} } : choice)) })];
      }
      return [finish(chunk)];
    },
    end() {
      // nothing followed the held chunk: send it as it came, rather than an empty stream
      const last: Chunk | undefined = held;
      return last ? [finish(last)] : [];
    },
  };
}
