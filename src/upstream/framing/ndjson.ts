/** Newline-delimited JSON framing: one event per non-empty line. */
import type { Framer, FramedEvent } from './sse.ts';

export function createNdjsonFramer(): Framer {
  const decoder = new TextDecoder();
  let buffer = '';
  const lines = (final: boolean): FramedEvent[] => {
    const parts = buffer.split('\n');
    buffer = final ? '' : (parts.pop() ?? '');
    return parts.map((line) => line.trim()).filter((line) => line.length > 0).map((data) => ({ event: undefined, data }));
  };
  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      return lines(false);
    },
    end() {
      buffer += decoder.decode();
      return lines(true);
    },
  };
}
