/**
 * Every error leaves in the OpenAI error shape with an honest status; a 500 never echoes internals. The body sent is
 * what the request log records as the request's error.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/errors.ts';
import { noteErrorBody } from '../../logging/request-record.ts';

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    if (error instanceof GatewayError) {
      const body = error.toBody();
      noteErrorBody(request.logRecord, body);
      reply.code(error.status).send(body);
      return;
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const param = error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'body' : null;
      const body = { error: { message: error.message, type: 'invalid_request_error', param, code: error.code?.toLowerCase() ?? null } };
      noteErrorBody(request.logRecord, body);
      reply.code(status).send(body);
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    const body = { error: { message: 'The gateway hit an internal error.', type: 'server_error', param: null, code: 'internal_error' } };
    noteErrorBody(request.logRecord, body);
    reply.code(500).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      error: { message: `No route for ${request.method} ${request.url.split('?')[0]}.`, type: 'not_found_error', param: null, code: 'route_not_found' },
    });
  });
}
