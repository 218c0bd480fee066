/**
 * An answer's finish reasons, for its spans (gen_ai.response.finish_reasons): a chat or text completion's by choice,
 * a Messages answer's stop_reason. Read from whatever form the answer passed in: the parsed answer, a stream's chunks,
 * a relayed stream's last bytes, a cached answer's JSON text; text is parsed only where it carries one.
 */
import { isObject, sseObjects } from './reassemble-stream.ts';

/**
 * The finish reasons a stream's chunks carried, in choice order (a choice's last one); undefined when none did.
 * For the tail of a relayed stream, whose earlier chunks are not parsed: a choice that finished before the tail is
 * not seen.
 */
export function finishReasonsOfChunks(chunks: readonly unknown[]): string[] | undefined {
  let reasons: Map<number, string> | undefined;
  for (const chunk of chunks) {
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) continue;
    chunk.choices.forEach((choice: unknown, position: number) => {
      if (!isObject(choice) || typeof choice.finish_reason !== 'string') return;
      (reasons ??= new Map()).set(typeof choice.index === 'number' ? choice.index : position, choice.finish_reason);
    });
  }
  return reasons ? [...reasons].sort((a, b) => a[0] - b[0]).map(([, reason]) => reason) : undefined;
}

/** a chunk whose choice finished: `"finish_reason":"stop"`, not the `null` of every other chunk */
const FINISHED = /"finish_reason"\s*:\s*"/;

/** The events of an SSE text (a relayed stream's tail) whose choices finished: only those lines are parsed. */
export function finishedEvents(text: string): unknown[] {
  return FINISHED.test(text) ? sseObjects(text.split('\n').filter((line) => FINISHED.test(line)).join('\n')) : [];
}

/** The finish reasons in an SSE text (a relayed stream's tail). */
export function finishReasonsInSse(text: string): string[] | undefined {
  return finishReasonsOfChunks(finishedEvents(text));
}

/** a Messages answer that stopped: `"stop_reason":"end_turn"` */
const STOPPED = /"stop_reason"\s*:\s*"/;

/** The finish reasons of an answer kept as JSON text (a cached one): parsed only when it carries one. */
export function finishReasonsInJson(text: string): string[] | undefined {
  if (!FINISHED.test(text) && !STOPPED.test(text)) return undefined;
  try {
    return finishReasonsOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * An answer's finish reasons: a chat or text completion's, by choice; a Messages API answer's (the gateway's
 * /v1/messages serves that shape, from native targets as they sent it) is its `stop_reason`.
 */
export function finishReasonsOf(answer: unknown): string[] | undefined {
  if (isObject(answer) && answer.type === 'message' && typeof answer.stop_reason === 'string') return [answer.stop_reason];
  if (!isObject(answer) || !Array.isArray(answer.choices)) return undefined;
  const reasons = answer.choices.map((choice) => (isObject(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined)).filter((reason): reason is string => reason !== undefined);
  return reasons.length > 0 ? reasons : undefined;
}
