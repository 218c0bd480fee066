/**
 * Fastify's own errors (router and body reader) in our vocabulary: the honest status Fastify chose, our code, the
 * part of the request at fault, and a message that does not name Fastify's internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, GatewayError, internalError } from '../../core/errors.ts';

/** The catalog error for a Fastify error with a 4xx status; null for anything else (a bug, answered as a 500). */
export function describeFrameworkError(error: FastifyError, bodyLimit: number | undefined): GatewayError | null {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return badRequest('The request path has an invalid percent-encoding.', 'invalid_path', 'path');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError(414, 'invalid_request_error', 'A segment of the request path is longer than the gateway accepts.', {
        code: 'path_too_long',
        param: 'path',
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError(413, 'invalid_request_error', `The request body is larger than the ${describeSize(bodyLimit)} the gateway accepts.`, {
        code: 'body_too_large',
        param: 'body',
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError(415, 'invalid_request_error', 'The request\'s Content-Type is not a valid media type.', {
        code: 'unsupported_media_type',
        param: 'content-type',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('The request body is not as long as its Content-Length says.', 'invalid_content_length', 'content-length');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('The request body is empty, but its Content-Type is JSON.', 'empty_body', 'body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest('The request body is not valid JSON.', 'invalid_json', 'body');
    // the request's body stream broke off (the client went away while sending it)
    case 'ECONNRESET':
      return badRequest('The request body was not received in full.', 'incomplete_request', 'body');
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status < 400 || status >= 500) return null;
  return new GatewayError(status, 'invalid_request_error', error.message, { code: 'invalid_request' });
}

/** Fastify's `frameworkErrors` option: errors raised before a route is found (a bad URL, an overlong parameter). */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let answer = describeFrameworkError(error, request.routeOptions.bodyLimit);
  if (!answer) {
    request.log.error({ err: error }, 'unhandled framework error');
    answer = internalError();
  }
  reply.code(answer.status).send(answer.toBody());
}

function describeSize(bytes: number | undefined): string {
  if (bytes === undefined) return 'size';
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
