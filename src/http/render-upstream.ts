/**
 * Writes an upstream answer back to the client. Four shapes:
 * - a stream (text/event-stream): bytes relayed as they arrive, with backpressure; chat and text completions
 *   always end with `data: [DONE]`; a stream that breaks ends with a data-only error event and a closed connection;
 * - pass-through routes: status, safe headers and body exactly as received;
 * - built-in routes: the answer is read whole and must be JSON (else 502); a provider error keeps the provider's
 *   status and message, in the OpenAI error shape; an answer in the OpenAI format is sent as the provider's bytes,
 *   one in another format is converted by the adapter's transform.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { UpstreamAttempt } from '../core/call-upstream.ts';
import { GatewayError, badGateway, requestTimeout, type ErrorBody } from '../core/errors.ts';
import type { InferenceCall, ProviderTarget, ResponseTransform } from '../providers/contract.ts';

const DROP_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'set-cookie',
  'content-length',
]);

const ENDS_WITH_DONE = new Set(['chat', 'completions']);

export function safeResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROP_RESPONSE_HEADERS.has(name) || name.startsWith('x-gateway-')) continue;
    out[name] = value;
  }
  return out;
}

function contentTypeOf(attempt: UpstreamAttempt): string {
  const value = attempt.response.headers['content-type'];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export interface RenderOptions {
  call: InferenceCall;
  target: ProviderTarget;
  transform: ResponseTransform | undefined;
  /** x-gateway-* headers for the answer */
  gatewayHeaders: Record<string, string>;
  timeoutMs: number | undefined;
}

export async function renderUpstream(reply: FastifyReply, attempt: UpstreamAttempt, options: RenderOptions): Promise<void> {
  const { response } = attempt;
  const status = response.statusCode;
  const contentType = contentTypeOf(attempt);
  const passthrough = options.call.route === 'passthrough';

  if (contentType.includes('text/event-stream')) {
    return relayStream(reply, attempt, options, ENDS_WITH_DONE.has(options.call.route) && !passthrough);
  }
  if (passthrough) {
    const headers = safeResponseHeaders(response.headers);
    const length = response.headers['content-length'];
    if (typeof length === 'string') headers['content-length'] = length;
    reply.code(status).headers({ ...headers, ...options.gatewayHeaders });
    response.body.once('end', attempt.done).once('error', attempt.done).once('close', attempt.done);
    return reply.send(response.body);
  }

  // Built-in routes read the whole (small) answer: it must be JSON, and its usage is what the request log needs.
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw attempt.timedOut() && options.timeoutMs !== undefined ? requestTimeout(options.timeoutMs) : badGateway(`Reading the answer of "${options.target.provider}" failed: ${(error as Error).message}`);
  } finally {
    attempt.done();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status >= 300) return sendProviderError(reply, status, text, options);
    throw badGateway(`Provider "${options.target.provider}" answered with a body that is not JSON.`);
  }
  if (status >= 300) return sendProviderError(reply, status, json, options);
  if (!options.transform) {
    // the provider already speaks our format: send its bytes, not a re-serialisation
    reply.code(status).headers({ ...safeResponseHeaders(response.headers), ...options.gatewayHeaders });
    reply.header('content-type', 'application/json; charset=utf-8').send(text);
    return;
  }
  let converted: unknown;
  try {
    converted = options.transform(json, options.call, options.target);
  } catch (error) {
    throw badGateway(`Provider "${options.target.provider}" answered in an unexpected shape: ${(error as Error).message}`);
  }
  reply.code(200).headers(options.gatewayHeaders).send(converted);
}

/** Keeps the provider's status and message, in the OpenAI error shape. */
function sendProviderError(reply: FastifyReply, status: number, body: unknown, options: RenderOptions): void {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const inner = record?.error;
  if (typeof inner === 'object' && inner !== null && typeof (inner as Record<string, unknown>).message === 'string') {
    reply.code(status).headers(options.gatewayHeaders).send(body);
    return;
  }
  const message =
    (typeof inner === 'string' && inner) ||
    (typeof record?.message === 'string' && record.message) ||
    (typeof body === 'string' && body.slice(0, 2000)) ||
    `Provider "${options.target.provider}" answered with status ${status}.`;
  const error: ErrorBody = {
    error: { message, type: 'upstream_error', param: null, code: `provider_status_${status}` },
  };
  reply.code(status).headers(options.gatewayHeaders).send(error);
}

function waitForDrain(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      raw.off('drain', finish);
      raw.off('close', finish);
      resolve();
    };
    raw.once('drain', finish);
    raw.once('close', finish);
  });
}

function streamErrorEvent(error: GatewayError): string {
  return `data: ${JSON.stringify(error.toBody())}\n\n`;
}

async function relayStream(reply: FastifyReply, attempt: UpstreamAttempt, options: RenderOptions, ensureDone: boolean): Promise<void> {
  const { response } = attempt;
  reply.hijack();
  const raw = reply.raw;
  raw.on('close', attempt.done);
  raw.writeHead(response.statusCode, {
    ...safeResponseHeaders(response.headers),
    'cache-control': 'no-cache',
    ...options.gatewayHeaders,
  });
  raw.flushHeaders();
  let tail = '';
  try {
    for await (const chunk of response.body) {
      if (raw.destroyed) break;
      const buffer = chunk as Buffer;
      if (ensureDone) tail = (tail + buffer.toString('latin1', Math.max(0, buffer.length - 64))).slice(-64);
      if (!raw.write(buffer)) await waitForDrain(raw);
    }
    if (ensureDone && !raw.destroyed && !tail.includes('[DONE]')) raw.write('data: [DONE]\n\n');
  } catch (error) {
    if (!raw.destroyed) {
      const failure = attempt.timedOut() && options.timeoutMs !== undefined
        ? requestTimeout(options.timeoutMs)
        : badGateway(`The stream from "${options.target.provider}" broke: ${(error as Error).message}`, 'stream_interrupted');
      raw.write(streamErrorEvent(failure));
    }
  } finally {
    attempt.done();
    raw.end();
  }
}
