/**
 * Server-sent events framing (https://html.spec.whatwg.org/multipage/server-sent-events.html): bytes in, whole
 * events out. Handles CRLF/LF/CR line ends, multi-line data, comments (`:` lines) and events split across chunks.
 * Providers never strip `data:` themselves: they receive framed events.
 */
export interface FramedEvent {
  /** the SSE `event:` field, or the AWS event-stream `:event-type` header */
  event: string | undefined;
  /** the event's data (the JSON payload text) */
  data: string;
}

export interface Framer {
  push(chunk: Buffer): FramedEvent[];
  end(): FramedEvent[];
}

export function createSseFramer(): Framer {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];

  function dispatch(out: FramedEvent[]): void {
    if (data.length > 0) out.push({ event, data: data.join('\n') });
    event = undefined;
    data = [];
  }

  function processLine(line: string, out: FramedEvent[]): void {
    if (line === '') return dispatch(out);
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }

  function drain(final: boolean): FramedEvent[] {
    const out: FramedEvent[] = [];
    let start = 0;
    for (let i = 0; i < buffer.length; i += 1) {
      const char = buffer.charCodeAt(i);
      if (char !== 10 && char !== 13) continue;
      // a CR at the very end may be the first half of CRLF: wait for the next chunk
      if (char === 13 && i === buffer.length - 1 && !final) break;
      processLine(buffer.slice(start, i), out);
      if (char === 13 && buffer.charCodeAt(i + 1) === 10) i += 1;
      start = i + 1;
    }
    buffer = buffer.slice(start);
    if (final) {
      if (buffer.length > 0) processLine(buffer, out);
      buffer = '';
      dispatch(out);
    }
    return out;
  }

  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      return drain(false);
    },
    end() {
      buffer += decoder.decode();
      return drain(true);
    },
  };
}
