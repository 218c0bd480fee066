/**
 * An answer's finish reasons, for its spans (gen_ai.response.finish_reasons): a chat or text completion's by choice,
 * a Messages answer's stop_reason, a Response's status read back into chat's terms (responseFinishReasons). Read from
 * whatever form the answer passed in: the parsed answer, a stream's chunks, a relayed stream's last bytes, a cached
 * answer's JSON text; text is parsed only where it carries one.
 */
import { isObject } from './reassemble-stream.ts';
import { sseObjects } from './sse-events.ts';

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
/** a Responses API object (its status says how it ended) */
const RESPONSE = /"object"\s*:\s*"response"/;
/** a Responses stream's last event, which carries the whole Response */
const RESPONSE_END = /"type"\s*:\s*"response\.(?:completed|incomplete|failed|cancelled)"/;

/**
 * The Response in a Responses stream's last event (response.completed, .incomplete, .failed or .cancelled), from an
 * SSE text; undefined when the text does not hold that event's line whole. Only that line is parsed.
 */
export function responseAtStreamEnd(text: string): Record<string, unknown> | undefined {
  if (!RESPONSE_END.test(text)) return undefined;
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index]!;
    // a line cut at the text's start does not begin with data:
    if (!line.startsWith('data:') || !RESPONSE_END.test(line)) continue;
    try {
      const event: unknown = JSON.parse(line.slice(5));
      return isObject(event) && isObject(event.response) ? event.response : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The finish reasons of an answer kept as JSON text (a cached one): parsed only when it carries one. */
export function finishReasonsInJson(text: string): string[] | undefined {
  if (!FINISHED.test(text) && !STOPPED.test(text) && !RESPONSE.test(text)) return undefined;
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
  if (isObject(answer) && answer.object === 'response') return responseFinishReasons(answer);
  if (!isObject(answer) || !Array.isArray(answer.choices)) return undefined;
  const reasons = answer.choices.map((choice) => (isObject(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined)).filter((reason): reason is string => reason !== undefined);
  return reasons.length > 0 ? reasons : undefined;
}

/** Responses output items that are calls the client runs (the model stopped to have them run) */
const CLIENT_CALLS = new Set(['function_call', 'custom_tool_call', 'computer_call', 'local_shell_call']);

/**
 * A Response's finish reason in chat's terms, as the gateway maps chat's onto a Response (src/responses/from-chat.ts):
 * `incomplete` gives its incomplete_details.reason (max_output_tokens, content_filter); `completed` gives `tool_calls`
 * when the output ends in calls for the client to run, else `stop`; `failed` gives `error`, `cancelled` itself. A
 * Response still in progress (or queued) has none.
 */
export function responseFinishReasons(response: Record<string, unknown>): string[] | undefined {
  switch (response.status) {
    case 'incomplete': {
      const details = response.incomplete_details;
      const reason = isObject(details) ? details.reason : undefined;
      return [typeof reason === 'string' ? reason : 'incomplete'];
    }
    case 'completed': {
      const output = Array.isArray(response.output) ? response.output : [];
      return [output.some((item) => isObject(item) && typeof item.type === 'string' && CLIENT_CALLS.has(item.type)) ? 'tool_calls' : 'stop'];
    }
    case 'failed':
      return ['error'];
    case 'cancelled':
      return ['cancelled'];
    default:
      return undefined;
  }
}
