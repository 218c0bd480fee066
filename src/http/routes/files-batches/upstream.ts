/**
 * One call to the provider for a files, batches or fine-tuning operation, through the same upstream step as every
 * inference call (src/pipeline/call-upstream.ts: request timeout, the client leaving, SigV4 or token `prepare`,
 * forwarded headers, the path kept under the provider's base path). What differs is built here: the adapter's
 * resource hooks, and an upload whose body is the client's stream, piped through and never held whole.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AbortLink } from '../../../core/abort-link.ts';
import { GatewayError, invalidParam, type ErrorType } from '../../../core/errors.ts';
import type { InferenceCall } from '../../../core/inference-call.ts';
import { noteErrorBody, noteResponse, noteTry } from '../../../logging/request-record.ts';
import { callUpstream, readAnswerText, type UpstreamAttempt } from '../../../pipeline/call-upstream.ts';
import { noteSavedProvider } from '../../../pipeline/saved-provider-target.ts';
import { noteAttempt } from '../../../pipeline/steps/log-record.ts';
import type { ProviderAdapter, ResourceCall, ResourceInput, ResourceOperation } from '../../../providers/contract.ts';
import type { UpstreamClient } from '../../../upstream/client.ts';
import type { ForwardDeps } from '../../forward.ts';
import { safeResponseHeaders } from '../../response-headers.ts';
import type { ResolvedResource } from './resolve.ts';

const CLIENT_GONE = new Error('client disconnected');

export interface Upload {
  stream: Readable;
  contentType: string;
  /** the client's content-length, passed on so the provider gets a sized body rather than a chunked one */
  length: string | undefined;
}

export function refuseUnsupported(resolved: ResolvedResource, operation: ResourceOperation): void {
  const message = resolved.adapter.resources?.unsupported?.(operation, resolved.target);
  if (message !== undefined) throw invalidParam('x-gateway-provider', message, 'unsupported_operation');
}

/** The adapter as callUpstream sees it: its pass-through request, with the upload's headers when there is one. */
function uploadingAdapter(adapter: ProviderAdapter, upload: Upload | undefined): ProviderAdapter {
  if (!upload) return adapter;
  return {
    ...adapter,
    buildRequest(call: InferenceCall, target) {
      const built = adapter.buildRequest(call, target);
      const headers: Record<string, string> = { ...built.headers, 'content-type': upload.contentType };
      if (upload.length !== undefined) headers['content-length'] = upload.length;
      return { ...built, headers };
    },
  };
}

/** The adapter building the provider's own call (its `operation` hook) instead of OpenAI's path; signed the same way. */
function customAdapter(adapter: ProviderAdapter, custom: ResourceCall | undefined): ProviderAdapter {
  if (!custom) return adapter;
  return { ...adapter, buildRequest: () => ({ ...custom.request, headers: { ...custom.request.headers } }) };
}

/** The provider's own call for this operation, when its API is not OpenAI's (undefined: OpenAI's path). */
export function customCall(resolved: ResolvedResource, operation: ResourceOperation, input: Omit<ResourceInput, 'workspaceId'>): ResourceCall | undefined {
  const hook = resolved.adapter.resources?.operation;
  if (!hook) return undefined;
  refuseUnsupported(resolved, operation);
  return hook(operation, { workspaceId: resolved.principal.workspaceId, query: resolved.call.query, ...input }, resolved.target);
}

/** The client the upload goes through: the same pools, with the client's stream as the body. */
function uploadingClient(client: UpstreamClient, upload: Upload | undefined): UpstreamClient {
  if (!upload) return client;
  return { ...client, send: (request, options) => client.send({ ...request, body: upload.stream }, options) };
}

export async function sendResource(
  request: FastifyRequest,
  reply: FastifyReply,
  resolved: ResolvedResource,
  operation: ResourceOperation,
  deps: ForwardDeps,
  upload?: Upload,
  custom?: ResourceCall,
): Promise<UpstreamAttempt> {
  const record = request.logRecord;
  if (record) record.route = operation;
  noteAttempt(record, resolved.adapter.name, resolved.call.body);
  noteSavedProvider(record, resolved.savedProvider);
  refuseUnsupported(resolved, operation);
  reply.header('x-gateway-provider', resolved.adapter.name);
  const clientGone = new AbortLink();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort(CLIENT_GONE);
  });
  const options = { headers: resolved.headers, clientHeaders: request.headers, clientGone, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) };
  const started = Date.now();
  try {
    const attempt = await callUpstream(uploadingClient(deps.upstream, upload), uploadingAdapter(customAdapter(resolved.adapter, custom), upload), resolved.target, resolved.call, options);
    noteTry(record, { path: null, provider: resolved.adapter.name, model: null, status: attempt.response.statusCode, error: null, retry: 0 }, started, Date.now());
    return attempt;
  } catch (error) {
    noteTry(record, { path: null, provider: resolved.adapter.name, model: null, status: null, error: { type: 'upstream', message: (error as Error).message }, retry: 0 }, started, Date.now());
    throw error;
  }
}

export type JsonAnswer = { ok: true; json: Record<string, unknown> } | { ok: false };

/**
 * Reads a (small) JSON answer. An error, or anything that is not a JSON object, goes back to the client as the
 * provider sent it (status, content type, body) and `{ok: false}` is returned: the route has nothing to record.
 */
export async function readJsonAnswer(reply: FastifyReply, resolved: ResolvedResource, attempt: UpstreamAttempt, custom?: ResourceCall): Promise<JsonAnswer> {
  const response = attempt.response;
  const text = await readAnswerText(attempt, resolved.target, resolved.headers.requestTimeoutMs);
  if (reply.request.logRecord) reply.request.logRecord.upstreamEndAt = Date.now();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const status = response.statusCode;
  if (custom) return customAnswer(reply, resolved, custom, status, json, text);
  if (status >= 200 && status < 300 && typeof json === 'object' && json !== null && !Array.isArray(json)) {
    return { ok: true, json: json as Record<string, unknown> };
  }
  if (status >= 400) noteErrorBody(reply.request.logRecord, json);
  noteResponse(reply.request.logRecord, { kind: 'text', text });
  await reply.code(status).headers(safeResponseHeaders(response.headers)).send(text);
  return { ok: false };
}

const ERROR_TYPES: Readonly<Record<number, ErrorType>> = { 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 409: 'conflict_error', 429: 'rate_limit_error' };

/**
 * The answer of a provider's own call: its hook reads a success; an error becomes the gateway's error shape (its
 * API's errors are not OpenAI's, and S3's are XML), with the provider's status and message.
 */
function customAnswer(reply: FastifyReply, resolved: ResolvedResource, custom: ResourceCall, status: number, json: unknown, text: string): JsonAnswer {
  if (status >= 200 && status < 300) return { ok: true, json: custom.answer(json) };
  noteErrorBody(reply.request.logRecord, json ?? text.slice(0, 2000));
  const parsed = json !== undefined ? resolved.adapter.parseError?.(status, json) : undefined;
  const error = parsed ?? custom.error?.(status, text) ?? { message: `${resolved.adapter.name} answered ${status}.` };
  const type: ErrorType = status >= 500 ? 'upstream_error' : (ERROR_TYPES[status] ?? 'invalid_request_error');
  throw new GatewayError(status >= 400 && status <= 599 ? status : 502, type, error.message, error.code ? { code: error.code } : {});
}

/** The answer's object(s) in OpenAI's shape: the adapter's hook over each, or as they came. */
export function openAiObject(resolved: ResolvedResource, operation: ResourceOperation, object: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const hook = resolved.adapter.resources?.answerObject;
  return hook ? hook(operation, object, resolved.target) : { ...object };
}

export function listData(list: Readonly<Record<string, unknown>>): Array<Record<string, unknown>> {
  return Array.isArray(list.data) ? list.data.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && !Array.isArray(entry)) : [];
}

export async function sendJson(reply: FastifyReply, body: unknown): Promise<void> {
  noteResponse(reply.request.logRecord, { kind: 'object', value: body });
  await reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}
