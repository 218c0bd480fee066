/** Stream framing by name: the adapters declare which one their provider speaks. */
import { createAwsEventStreamFramer } from './aws-event-stream.ts';
import { createNdjsonFramer } from './ndjson.ts';
import { createSseFramer, type Framer } from './sse.ts';

export type { Framer, FramedEvent } from './sse.ts';

/** The stream framings a provider may speak. */
export type StreamFraming = 'sse' | 'aws-event-stream' | 'ndjson';

const framers: Partial<Record<StreamFraming, () => Framer>> = {
  sse: createSseFramer,
  ndjson: createNdjsonFramer,
  'aws-event-stream': createAwsEventStreamFramer,
};

export function createFramer(framing: StreamFraming): Framer {
  const create = framers[framing];
  if (!create) throw new Error(`no framer for ${framing}`);
  return create();
}
