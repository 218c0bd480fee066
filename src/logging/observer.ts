/**
 * What else sees a finished request besides the request log: metrics and traces. An observer gets the row the log
 * writes (every timing, attempt, token and cost is on it) and the request's headers (an incoming `traceparent`),
 * once, when the response has closed, off the answer's path. An observer never throws and never blocks: it
 * updates counters or hands spans to a batching exporter.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

export interface FinishedRequest {
  row: NewRequestLogRow;
  headers: IncomingHttpHeaders;
  /** the answer's finish reasons (`stop`, `length`, `tool_calls` ...), when it had any */
  finishReasons: readonly string[] | undefined;
  /** the model the answer names (gen_ai.response.model), when it named one */
  responseModel: string | undefined;
}

export type RequestObserver = (finished: FinishedRequest) => void;
