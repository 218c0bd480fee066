/**
 * One upstream attempt: build the provider request, add the forwarded client headers, send it, and bound it by
 * the request timeout and the client's connection. The timer keeps running while a streamed body is read, and
 * the caller must call `done()` once the body is consumed or abandoned.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders } from '../core/context.ts';
import { GatewayError, badGateway, invalidParam, requestTimeout } from '../core/errors.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, UpstreamRequest } from '../providers/contract.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { refuseDotSegments } from './path-rules.ts';
import { CUSTOM_HOST_BLOCKED_CODE, type Allowlist, type LookupAll } from '../upstream/ssrf-guard.ts';

// Abort reasons are allocated once: an Error per request would capture a stack trace on the hot path.
const ABANDONED = new Error('upstream answer abandoned');

/** Never forwarded, even when named in x-gateway-forward-headers. */
const NEVER_FORWARD = new Set([
  'x-gateway-api-key',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);

export interface UpstreamAttempt {
  request: UpstreamRequest;
  response: Dispatcher.ResponseData;
  /**
   * ends the attempt: clears the timer and listeners and, unless `completed` (the body was read to its end),
   * aborts the upstream call. Only the first call counts.
   */
  done(completed?: boolean): void;
  /** true once the request timeout fired */
  timedOut(): boolean;
}

export function forwardedHeaders(headers: GatewayHeaders, clientHeaders: IncomingHttpHeaders): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of headers.forwardHeaders) {
    if (NEVER_FORWARD.has(name)) {
      throw invalidParam('x-gateway-forward-headers', `Header ${name} cannot be forwarded.`, 'invalid_header');
    }
    const value = clientHeaders[name];
    if (value !== undefined) forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return forwarded;
}

export interface UpstreamCallOptions {
  headers: GatewayHeaders;
  clientHeaders: IncomingHttpHeaders;
  clientGone: AbortLink;
  allowlist: Allowlist;
  lookup?: LookupAll;
}

export async function callUpstream(
  client: UpstreamClient,
  adapter: ProviderAdapter,
  target: ProviderTarget,
  call: InferenceCall,
  options: UpstreamCallOptions,
): Promise<UpstreamAttempt> {
  let request = adapter.buildRequest(call, target);
  refuseDotSegments(request.url, call);
  if (options.headers.forwardHeaders.length > 0) Object.assign(request.headers, forwardedHeaders(options.headers, options.clientHeaders));

  // aborted by the timeout, the client leaving (linked below) or done() on an unread answer
  const abort = new AbortLink();
  let timedOut = false;
  const timeoutMs = options.headers.requestTimeoutMs;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          abort.abort(requestTimeout(timeoutMs));
        }, timeoutMs);
  const clientGone = options.clientGone;
  clientGone.link(abort);

  let settled = false;
  const done = (completed = false) => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    clientGone.unlink(abort);
    if (!completed && !abort.aborted) abort.abort(ABANDONED);
  };

  const built = request;
  try {
    if (adapter.prepare) {
      const context = { allowlist: options.allowlist, signal: abort.signal, ...(options.lookup ? { lookup: options.lookup } : {}) };
      request = await adapter.prepare(request, target, context);
    }
    let response = await client.send(request, { customHost: target.customHost, signal: abort });
    // a cached credential the provider refused (revoked before it expired) is forgotten: once more with a fresh one
    if (response.statusCode === 401 && adapter.credentialRefused?.(request, target)) {
      await response.body.dump();
      request = await adapter.prepare!(built, target, { allowlist: options.allowlist, signal: abort.signal, ...(options.lookup ? { lookup: options.lookup } : {}) });
      response = await client.send(request, { customHost: target.customHost, signal: abort });
    }
    return { request, response, done, timedOut: () => timedOut };
  } catch (error) {
    done();
    if (timedOut && timeoutMs !== undefined) throw requestTimeout(timeoutMs);
    throw toGatewayError(error, target);
  }
}

export function toGatewayError(error: unknown, target: ProviderTarget): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string } | null)?.code;
  if (code === CUSTOM_HOST_BLOCKED_CODE) {
    return invalidParam('x-gateway-custom-host', 'The custom host resolves to a blocked address.', 'custom_host_blocked');
  }
  const reason = error instanceof Error ? error.message : String(error);
  return badGateway(`Could not reach provider "${target.provider}": ${reason}`, 'upstream_unreachable');
}

/**
 * Reads a (small, non-streamed) answer whole and ends the attempt. A read cut short by the request timeout is a
 * 408; any other broken read a 502.
 */
export async function readAnswerText(attempt: UpstreamAttempt, target: ProviderTarget, timeoutMs: number | undefined): Promise<string> {
  try {
    const text = await attempt.response.body.text();
    attempt.done(true);
    return text;
  } catch (error) {
    attempt.done();
    throw attempt.timedOut() && timeoutMs !== undefined
      ? requestTimeout(timeoutMs)
      : badGateway(`Reading the answer of "${target.provider}" failed: ${(error as Error).message}`);
  }
}
