/**
 * The cache store step: a chosen 2xx answer of a caching target is written to the response cache off the
 * response path (a failure to store never fails the request). A JSON answer is stored as the client gets it; a
 * stream is assembled from its canonical chunks once it has ended (one that ended early or with an error
 * assembles to nothing and is not stored).
 */
import { assembleFromStream } from '../../cache/assemble.ts';
import type { CachePlan } from '../../cache/pipeline.ts';
import type { ResponseCache } from '../../cache/response-cache.ts';

export interface StoreAnswer {
  json(status: number, body: string): void;
  stream(chunks: readonly unknown[]): void;
}

export function storer(cache: ResponseCache, plan: CachePlan, onError: (error: unknown) => void): StoreAnswer {
  const put = (status: number, body: string) => {
    cache
      .set(plan.key, { status, contentType: 'application/json', body }, plan.maxAgeSeconds)
      .then((outcome) => {
        if (outcome === 'stored') plan.onStored?.();
      })
      .catch(onError);
  };
  return {
    json: put,
    stream: (chunks) => {
      const answer = assembleFromStream(chunks);
      if (answer) put(200, JSON.stringify(answer));
    },
  };
}
