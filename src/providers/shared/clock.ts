/**
 * Time and ids for the parts of an answer the gateway writes itself: `created` (most providers send no timestamp)
 * and the `chatcmpl-` id of answers that carry none. Injected through the adapter factory's options so fixture
 * tests are exact; nothing in an adapter reads the wall clock directly.
 */
import { randomUUID } from 'node:crypto';

export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
  /** a fresh unique id, without prefix (the adapter adds `chatcmpl-` or whatever its answer needs) */
  newId(): string;
}

export const systemClock: Clock = { now: () => Date.now(), newId: () => randomUUID() };

/** What an adapter factory takes: every option has a default, so the registry calls it bare. */
export interface AdapterOptions {
  clock?: Clock;
}

/** unix seconds, OpenAI's `created` */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
