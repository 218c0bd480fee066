/**
 * The answers Node's HTTP server and Fastify would otherwise write themselves, as plain text, an empty body or
 * Fastify's own JSON: a parser error, a bad URL, an HTTP/1.1 request without Host, an unknown Expect, CONNECT, and
 * a request that arrives while the gateway drains. Each one leaves in the error shape with its honest status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidParam } from '../../core/errors.ts';
import { answerClientError, writeAndClose } from './client-errors.ts';
import { answerFrameworkError } from './framework-errors.ts';

/** Spread into Fastify's options: hands these answers to us instead of Node's and Fastify's defaults. */
export const errorAnswerOptions = {
  clientErrorHandler: answerClientError,
  frameworkErrors: answerFrameworkError,
  // registerServerAnswers answers these two in the error shape
  return503OnClosing: false,
  http: { requireHostHeader: false },
};

export function registerServerAnswers(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A callback hook registered before auth: these answers come before any other check.
  app.addHook('onRequest', (request, _reply, done) => {
    // Fastify's router has already marked the response `connection: close`
    if (closing) {
      done(new GatewayError(503, 'server_error', 'The gateway is shutting down: send the request again.', { code: 'shutting_down' }));
      return;
    }
    // RFC 9112, section 3.2: an HTTP/1.1 request without Host is a 400
    if (request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor === 1 && request.headers.host === undefined) {
      done(invalidParam('host', 'An HTTP/1.1 request must carry a Host header.', 'missing_host'));
      return;
    }
    done();
  });
  // Node answers an Expect other than 100-continue with an empty 417 unless someone listens
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const answer = new GatewayError(417, 'invalid_request_error', 'The only expectation the gateway meets is "100-continue".', {
      code: 'expectation_failed',
      param: 'expect',
    });
    const body = JSON.stringify(answer.toBody());
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });
  // Node drops a CONNECT without a word unless someone listens: the gateway is not a tunnelling proxy
  app.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    // Node hands the socket over bare: without a listener a reset would be an uncaught error
    socket.on('error', () => socket.destroy());
    socket.resume();
    writeAndClose(
      socket,
      new GatewayError(405, 'invalid_request_error', 'CONNECT is not served: the gateway is not a tunnelling proxy.', {
        code: 'method_not_allowed',
        param: 'method',
      }),
    );
  });
}
