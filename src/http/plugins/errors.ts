/**
 * Every error leaves in the OpenAI error shape with an honest status; a 500 never echoes internals. The body sent is
 * what the request log records as the request's error.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { GatewayError, internalError, isConnectionFailure, storageUnavailable } from '../../core/errors.ts';
import { noteErrorBody } from '../../logging/request-record.ts';
import { describeFrameworkError } from './framework-errors.ts';

export interface ErrorHandlingOptions {
  /** counts a request answered 503 because the database could not be reached */
  onStorageUnavailable?: () => void;
}

export function registerErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions = {}): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    let answer = error instanceof GatewayError ? error : describeFrameworkError(error, request.routeOptions.bodyLimit);
    if (!answer && isConnectionFailure(error)) {
      // the database is away: an honest 503 the caller can retry, not a 500 (it recovers by itself)
      request.log.warn({ err: error }, 'the database is unavailable');
      answer = storageUnavailable();
      options.onStorageUnavailable?.();
      reply.header('retry-after', '1');
    }
    if (!answer) {
      request.log.error({ err: error }, 'unhandled error');
      answer = internalError();
    }
    const body = answer.toBody();
    noteErrorBody(request.logRecord, body);
    reply.code(answer.status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      error: { message: `No route for ${request.method} ${request.url.split('?')[0]}.`, type: 'not_found_error', param: null, code: 'route_not_found' },
    });
  });
}
