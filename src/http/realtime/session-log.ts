/**
 * A Realtime session's request-log row: one per session, written when both sockets have closed, from a record the
 * session fills itself (there is no Fastify reply: the request was upgraded). Status 101; a session that ended
 * with a normal close (1000, or no code) counts as a success; usage is the sum of the provider's `response.done`
 * events, priced like any answer's (the price looked up when the session opened).
 */
import type { IncomingMessage } from 'node:http';
import type { GatewayHeaders, Principal } from '../../core/context.ts';
import { logRow } from '../../logging/log-row.ts';
import type { RequestObserver } from '../../logging/observer.ts';
import type { RequestLogWriter } from '../../logging/request-log.ts';
import type { RequestRecord } from '../../logging/request-record.ts';
import { headersForLog } from './handshake.ts';

export interface SessionLogDeps {
  writer: RequestLogWriter;
  now: () => number;
  newId: () => string;
  headersToMask: readonly string[];
  bodyCap: number;
  observers?: readonly RequestObserver[];
}

export interface FinishedSession {
  request: IncomingMessage;
  record: RequestRecord;
  principal: Principal;
  headers: GatewayHeaders;
  /** the status the client got: 101 once upgraded, the refusal's otherwise */
  status: number;
  model: string;
  /** the session ended cleanly (a normal close) */
  succeeded: boolean;
  onError: (error: unknown) => void;
}

const NORMAL_CLOSES: ReadonlySet<number> = new Set([1000, 1005]);

export function isNormalClose(code: number): boolean {
  return NORMAL_CLOSES.has(code);
}

export function writeSessionRow(session: FinishedSession, deps: SessionLogDeps): void {
  const { request, record, principal, headers } = session;
  try {
    const row = logRow({
      id: deps.newId(),
      record,
      principal,
      gateway: headers,
      fallbackTraceId: headers.trace.traceId,
      method: 'GET',
      url: request.url ?? '/v1/realtime',
      requestBody: { model: session.model },
      rawBody: undefined,
      requestHeaders: headersForLog(request.headers),
      responseHeaders: {},
      headersToMask: deps.headersToMask,
      bodyCap: deps.bodyCap,
      status: session.status,
      completed: true,
      headersSent: true,
      endedAt: deps.now(),
    });
    // logRow counts 2xx as answered: a 101 that ran its course is this route's success
    if (session.status === 101) row.isSuccess = session.succeeded && record.error === undefined;
    deps.writer.write(row);
    for (const observe of deps.observers ?? []) {
      try {
        observe({ row, headers: request.headers, finishReasons: undefined, responseModel: record.answerModel });
      } catch (error) {
        session.onError(error);
      }
    }
  } catch (error) {
    session.onError(error);
  }
}
