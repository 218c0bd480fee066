/**
 * The spans of a finished request, made from its log row once the answer has ended: one SERVER span for the
 * request (from its arrival to the end of its answer) and one CLIENT span per upstream try under it (each at its
 * own offset, fallbacks and retries included). Made after the fact, so nothing runs on the request's path; the
 * timestamps are the row's, not the moment the spans are built.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { RequestObserver } from '../logging/observer.ts';
import type { AttemptLog } from '../logging/request-record.ts';
import { rowAttempts } from '../metrics/row-attempts.ts';
import { attemptAttributes, attemptFailed, operationName, requestAttributes, spanName } from './gen-ai-attributes.ts';
import { spanPlace } from './parent.ts';
import type { PresetIdGenerator } from './preset-ids.ts';

export interface RequestSpanDeps {
  tracer: Tracer;
  /** the tracer provider's id generator: the request span takes the client's ids through it */
  ids: PresetIdGenerator;
  /** an observer never throws: a span that cannot be made is reported here */
  onError: (error: unknown) => void;
}

function lastAnswered(attempts: readonly AttemptLog[]): number {
  for (let index = attempts.length - 1; index >= 0; index -= 1) if (!attemptFailed(attempts[index]!)) return index;
  return -1;
}

export function requestSpanObserver(deps: RequestSpanDeps): RequestObserver {
  const { tracer, ids } = deps;
  return ({ row, headers, finishReasons, responseModel }) => {
    try {
      const place = spanPlace(headers, row);
      const operation = operationName(row.route);
      const startedAt = row.createdAt.getTime();
      ids.next({ traceId: place.traceId, spanId: place.spanId });
      let span;
      try {
        span = tracer.startSpan(
          row.spanName ?? spanName(operation, row.model),
          { kind: SpanKind.SERVER, startTime: new Date(startedAt), attributes: requestAttributes(row, finishReasons, responseModel) },
          place.parent,
        );
      } finally {
        ids.clear();
      }
      if (!row.isSuccess) span.setStatus({ code: SpanStatusCode.ERROR, ...(row.error && typeof row.error.message === 'string' ? { message: row.error.message } : {}) });

      const inside = trace.setSpan(ROOT_CONTEXT, span);
      const attempts = rowAttempts(row);
      // the chosen answer came from the last try that did not fail (none on a failure or a cache hit)
      const answered = row.isSuccess ? lastAnswered(attempts) : -1;
      attempts.forEach((attempt, index) => {
        const start = startedAt + attempt.started_ms;
        const child = tracer.startSpan(
          spanName(operation, attempt.model),
          { kind: SpanKind.CLIENT, startTime: new Date(start), attributes: attemptAttributes(row, attempt, index === answered ? { finishReasons } : undefined) },
          inside,
        );
        if (attemptFailed(attempt)) child.setStatus({ code: SpanStatusCode.ERROR, ...(attempt.error ? { message: attempt.error.message } : {}) });
        child.end(new Date(start + attempt.duration_ms));
      });
      span.end(new Date(startedAt + row.responseTimeMs));
    } catch (error) {
      deps.onError(error);
    }
  };
}
