/**
 * The cache store step: a chosen 2xx answer of a caching target is written to the response cache off the
 * response path (a failure to store never fails the request). What is stored is the route's cache form
 * (cache/cache-form.ts): for chat and completions the answer as the client gets it, a stream assembled from its
 * canonical chunks once it has ended (one that ended early or with an error assembles to nothing and is not
 * stored); the Messages and Responses routes store a Message and a Response.
 */
import { canonicalCacheForm, type CacheForm, type JsonAnswerRead } from '../../cache/cache-form.ts';
import type { CachePlan } from '../../cache/pipeline.ts';
import type { ResponseCache } from '../../cache/response-cache.ts';
import type { InferenceCall } from '../../providers/contract.ts';

export interface StoreAnswer {
  json(status: number, answer: JsonAnswerRead): void;
  stream(chunks: readonly unknown[]): void;
}

export function storer(cache: ResponseCache, plan: CachePlan, onError: (error: unknown) => void, call: InferenceCall, form: CacheForm = canonicalCacheForm): StoreAnswer {
  const put = (status: number, body: string | undefined) => {
    if (body === undefined) return;
    cache
      .set(plan.key, { status, contentType: 'application/json', body }, plan.maxAgeSeconds)
      .then((outcome) => {
        if (outcome === 'stored') plan.onStored?.();
      })
      .catch(onError);
  };
  const guarded = (body: () => string | undefined) => {
    try {
      return body();
    } catch (error) {
      // an answer the form cannot read is not stored; the client already has it
      onError(error);
      return undefined;
    }
  };
  return {
    json: (status, answer) => put(status, guarded(() => form.fromJson(answer, call))),
    stream: (chunks) => put(200, guarded(() => form.fromStream(chunks, call))),
  };
}
