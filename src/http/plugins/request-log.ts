/**
 * The request log's one place of record: every route that declares `config.routeKind` (the inference, models and
 * pass-through routes) gets a record when it arrives (after authentication: a 401 has no organisation to log
 * under), and its row is written when the response closes. `close` rather than Fastify's onResponse: it fires for
 * every outcome, hijacked streams and clients that went away included, and only once.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { logRow } from '../../logging/log-row.ts';
import type { RequestObserver } from '../../logging/observer.ts';
import type { RequestLogWriter } from '../../logging/request-log.ts';
import { newRequestRecord } from '../../logging/request-record.ts';
import type { RouteKind } from '../../providers/contract.ts';

export interface RequestLogHookDeps {
  writer: RequestLogWriter;
  /** ms since the epoch */
  now: () => number;
  newId: () => string;
  /** ORGANISATION_HEADERS_TO_MASK, lower case: stored hashed */
  headersToMask: readonly string[];
  /** each logged body is cut at this many bytes; 0 logs no bodies */
  bodyCap: number;
  /** metrics and traces: each sees the row once it is built */
  observers?: readonly RequestObserver[];
}

function writeRow(request: FastifyRequest, reply: FastifyReply, deps: RequestLogHookDeps): void {
  const record = request.logRecord;
  const principal = request.principal;
  if (!record || !principal) return;
  const raw = reply.raw;
  const traceHeader = request.headers['x-gateway-trace-id'];
  const row = logRow({
      id: deps.newId(),
      record,
      principal,
      gateway: request.gateway,
      fallbackTraceId: typeof traceHeader === 'string' && traceHeader.trim() ? traceHeader.trim() : request.id,
      method: request.method,
      url: request.url,
      requestBody: request.body,
      rawBody: request.rawBody,
      requestHeaders: request.headers,
      // a hijacked stream wrote its headers itself; Fastify knows the others
      responseHeaders: record.streamHeaders ?? reply.getHeaders(),
      headersToMask: deps.headersToMask,
      bodyCap: deps.bodyCap,
      status: raw.statusCode,
      completed: raw.writableFinished,
      headersSent: raw.headersSent,
      endedAt: deps.now(),
  });
  // the observers before the queue: measured in CPU profiles, the metrics observer ran ~3x slower right after the
  // row's encoding, and both together cost the main thread less in this order (docs/performance.md, thirteenth session)
  if (deps.observers) {
    const finished = { row, headers: request.headers, finishReasons: record.finishReasons, responseModel: record.answerModel };
    for (const observe of deps.observers) {
      try {
        observe(finished);
      } catch (error) {
        // one observer failing does not keep the next from seeing the request
        request.log.error({ err: error }, 'request log: an observer failed');
      }
    }
  }
  deps.writer.write(row);
}

function recordOn(route: RouteKind, deps: RequestLogHookDeps): onRequestHookHandler {
  // a callback hook, not an async one: no promise per request for synchronous work
  return (request, reply, done) => {
    if (!request.principal) return done();
    request.logRecord = newRequestRecord(deps.now(), route);
    reply.raw.once('close', () => {
      try {
        writeRow(request, reply, deps);
      } catch (error) {
        // an event listener that throws would take the process down: a lost row is the lesser harm
        request.log.error({ err: error }, 'request log: the row could not be built');
      }
    });
    done();
  };
}

/** Registers the hook on every route added after this call that declares a routeKind. */
export function registerRequestLog(app: FastifyInstance, deps: RequestLogHookDeps): void {
  app.decorateRequest('logRecord', undefined);
  app.addHook('onRoute', (route) => {
    const kind = route.config?.routeKind;
    if (kind === undefined) return;
    const hook = recordOn(kind, deps);
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
