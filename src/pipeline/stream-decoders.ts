/** Stream decoders the pipeline adds around an adapter's: an OpenAI stream read as events, and text collection. */
import { badGateway } from '../core/errors.ts';
import type { StreamDecoder, StreamEvent } from '../providers/contract.ts';

/** An OpenAI-format stream read as events: each chunk passed on as it is, the provider's [DONE] held back. */
export function identityDecoder(): StreamDecoder {
  return {
    push(event: StreamEvent) {
      if (event.data === '[DONE]') return [];
      try {
        return [JSON.parse(event.data)];
      } catch {
        throw badGateway('The provider sent a stream event that is not JSON.', 'stream_interrupted');
      }
    },
    end: () => [],
  };
}

export interface CollectingDecoder {
  decoder: StreamDecoder;
  /** the first choice's text so far */
  text(): string;
  /** every canonical chunk so far */
  chunks(): unknown[];
}

/** Wraps a decoder to assemble the first choice's text as the chunks go by. */
export function collectingDecoder(inner: StreamDecoder): CollectingDecoder {
  let text = '';
  const all: unknown[] = [];
  const collect = (chunks: unknown[]) => {
    for (const chunk of chunks) {
      all.push(chunk);
      const choices = (chunk as { choices?: Array<{ index?: number; delta?: { content?: unknown }; text?: unknown }> }).choices;
      const first = choices?.find((choice) => (choice.index ?? 0) === 0);
      const piece = first?.delta?.content ?? first?.text;
      if (typeof piece === 'string') text += piece;
    }
    return chunks;
  };
  return {
    decoder: { push: (event) => collect(inner.push(event)), end: () => collect(inner.end()) },
    text: () => text,
    chunks: () => all,
  };
}
