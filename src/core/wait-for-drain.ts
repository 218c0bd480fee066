/** A stream writer's backpressure: resolves once the response drained its buffer, or closed (the client left). */
import type { Writable } from 'node:stream';

export function waitForDrain(raw: Writable): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      raw.off('drain', finish);
      raw.off('close', finish);
      resolve();
    };
    raw.once('drain', finish);
    raw.once('close', finish);
  });
}
