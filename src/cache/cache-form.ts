/**
 * The form a route's answers take in the response cache. Chat and completions store the canonical answer (a chat
 * or text completion) and replay it as their own stream; a route whose client gets another shape (a Message at
 * /v1/messages, a Response at /v1/responses) stores that shape instead, so a hit answers what a miss would have,
 * whichever provider produced the entry. The route's transport passes its form in with its dependencies.
 */
import { assembleFromStream } from './assemble.ts';
import type { InferenceCall } from '../providers/contract.ts';

/** A JSON answer as the pipeline read it: the provider's bytes, and the canonical (converted) answer. */
export interface JsonAnswerRead {
  text: string;
  canonical: unknown;
  /** true when `canonical` is the provider's own body, `text` parsed */
  unchanged: boolean;
}

export interface CacheForm {
  /** the body to store for a 2xx JSON answer; undefined stores nothing */
  fromJson(answer: JsonAnswerRead, call: InferenceCall): string | undefined;
  /** the body to store for a stream that ended, from its decoded chunks; undefined when it did not end whole */
  fromStream(chunks: readonly unknown[], call: InferenceCall): string | undefined;
}

/** Chat and completions: the answer in canonical form, the provider's bytes when already in it. */
export const canonicalCacheForm: CacheForm = {
  fromJson: (answer) => (answer.unchanged ? answer.text : JSON.stringify(answer.canonical)),
  fromStream(chunks) {
    const answer = assembleFromStream(chunks);
    return answer && JSON.stringify(answer);
  },
};
