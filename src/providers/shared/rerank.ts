/** Pieces every rerank adapter shares: a request document's text, and results in the order the gateway promises. */
import { isRecord } from './json.ts';

/** A rerank document's text: the string itself, or an object's `text` ('' when it has none). */
export function documentText(document: unknown): string {
  if (typeof document === 'string') return document;
  return isRecord(document) && typeof document.text === 'string' ? document.text : '';
}

/** Results sorted by relevance_score, highest first, whatever order the provider answered in. */
export function byRelevance<T extends { relevance_score: number }>(results: T[]): T[] {
  return results.sort((a, b) => b.relevance_score - a.relevance_score);
}
