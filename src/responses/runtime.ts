/**
 * The Responses API over chat, as the app wires it: the ids and clock, the store of produced responses, the
 * registry whose chat-only adapters serve `responses.create`, and what the transport calls around a request:
 * `continued` before it (previous_response_id), `keep` after a JSON answer, `writeStream` for a stream.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { CacheForm } from '../cache/cache-form.ts';
import type { CachedAnswer } from '../cache/response-cache.ts';
import type { KvStore } from '../kv/store.ts';
import type { InferenceCall } from '../providers/contract.ts';
import { responsesCacheForm, serveCachedResponse } from './cache.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { continueConversation, resolveReferences, storedOf } from './conversation.ts';
import { responsesOverChat } from './over-chat.ts';
import { createResponsesStore, type ResponsesStore } from './store.ts';
import { createResponsesStreamEncoder } from './stream-encoder.ts';
import type { ResponseObject, ResponsesIds, ResponsesRequest } from './types.ts';
import { writeResponsesStream, type ResponsesStreamOptions } from './write-stream.ts';

export interface ResponsesRuntime {
  readonly store: ResponsesStore;
  /** the registry with Responses over chat for every adapter without a native Responses API */
  registry(registry: ProviderRegistry): ProviderRegistry;
  /**
   * the request with a stored previous response's conversation before its input and stored items in place of their
   * `item_reference`s; undefined when the store holds none of them (the request then goes as sent)
   */
  continued(organisationId: string, request: ResponsesRequest): Promise<ResponsesRequest | undefined>;
  /** stores a response the gateway produced (unless the request said `store: false`) */
  keep(organisationId: string | undefined, request: ResponsesRequest, response: unknown): Promise<void>;
  writeStream(
    reply: FastifyReply,
    stream: Parameters<typeof writeResponsesStream>[1],
    request: ResponsesRequest,
    options: Omit<ResponsesStreamOptions, 'onResponse'> & { organisationId: string | undefined },
  ): Promise<void>;
  /** how the response cache stores Responses (cache.ts) */
  readonly cacheForm: CacheForm;
  /** serves a cache hit as a fresh Response, kept in the store */
  serveCached(reply: FastifyReply, cached: CachedAnswer, call: InferenceCall, gatewayHeaders: Record<string, string>): Promise<void>;
}

export interface ResponsesRuntimeDeps {
  kv: KvStore;
  /** how long a produced response is kept (30 days by default) */
  ttlMs?: number;
  ids?: ResponsesIds;
}

export const defaultResponsesIds: ResponsesIds = {
  newId: (prefix) => `${prefix}_${randomBytes(24).toString('hex')}`,
  now: () => Math.floor(Date.now() / 1000),
};

const RUNTIME: unique symbol = Symbol('responses runtime');

/** The runtime of an adapter that runs Responses over chat (the renderer then encodes Responses events); else undefined. */
export function responsesRuntimeOf(adapter: object): ResponsesRuntime | undefined {
  return (adapter as { [RUNTIME]?: ResponsesRuntime })[RUNTIME];
}

export function createResponsesRuntime(deps: ResponsesRuntimeDeps): ResponsesRuntime {
  const ids = deps.ids ?? defaultResponsesIds;
  const store = createResponsesStore(deps.kv, deps.ttlMs);
  const keep = async (organisationId: string | undefined, request: ResponsesRequest, response: unknown) => {
    if (organisationId === undefined || request.store === false) return;
    await store.put(organisationId, storedOf(request, response as ResponseObject, ids));
  };
  const runtime: ResponsesRuntime = {
    store,
    registry: (registry) =>
      new Map([...registry].map(([name, adapter]) => {
        const wrapped = responsesOverChat(adapter, ids);
        return [name, wrapped === adapter ? adapter : Object.assign(wrapped, { [RUNTIME]: runtime })];
      })),
    async continued(organisationId, request) {
      const previous = typeof request.previous_response_id === 'string' ? await store.get(organisationId, request.previous_response_id) : undefined;
      const continued = previous ? continueConversation(request, previous) : request;
      const resolved = await resolveReferences(continued, (id) => store.item(organisationId, id));
      return resolved === request ? undefined : resolved;
    },
    keep,
    cacheForm: responsesCacheForm(ids),
    serveCached: (reply, cached, call, gatewayHeaders) =>
      serveCachedResponse(reply, cached, call, gatewayHeaders, { encoder: (request) => createResponsesStreamEncoder(request, ids), keep }),
    writeStream(reply, stream, request, options) {
      const encoder = createResponsesStreamEncoder(request, ids);
      return writeResponsesStream(reply, stream, encoder, { ...options, onResponse: (response) => keep(options.organisationId, request, response) });
    },
  };
  return runtime;
}
