/**
 * The chunks of a readable stream, as `for await` gives them, except that a stream destroyed with an error (an
 * upstream connection that broke) first gives every chunk it had already received. Node's own iterator drops those:
 * it stops reading a destroyed stream, so the last tokens a provider sent before its connection broke were lost
 * whenever they arrived together with the break (a busy gateway reads both in one turn of its event loop).
 */
import { finished, type Readable } from 'node:stream';

export async function* chunksUntilBroken(stream: Readable): AsyncGenerator<Buffer> {
  /** undefined while the stream goes on; null once it ended; the error once it failed */
  let outcome: Error | null | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const stopWatching = finished(stream, { writable: false }, (error) => {
    outcome = error ?? null;
    notify();
  });
  stream.on('readable', notify);
  try {
    for (;;) {
      // read() still hands out what was buffered after the stream was destroyed
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (outcome !== undefined) {
        if (outcome) throw outcome;
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off('readable', notify);
    stopWatching();
    // the reader stopped early (the client went away): the upstream's connection is let go, as `for await` does
    if (outcome === undefined) stream.destroy();
  }
}
