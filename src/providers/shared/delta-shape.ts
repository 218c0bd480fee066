/**
 * The kind of event a stream sends one of per piece of text, alike but for that text (a chat completion chunk's
 * content delta, a Messages text delta): where the text stands, and the event with another text in its place. The
 * request log reads such events from a template of their text instead of parsing each (src/logging/sse-events.ts).
 */
export interface DeltaShape {
  /** the key of the string that varies */
  key: string;
  /** that string, when `event` is a delta of this shape (and nothing else in its delta); undefined otherwise */
  text(event: unknown): string | undefined;
  /** `event` (a delta of this shape) with `text` in that place */
  with(event: Record<string, unknown>, text: string): Record<string, unknown>;
}
