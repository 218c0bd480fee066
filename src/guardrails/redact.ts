/** Redaction spans applied to a text; shared by the PII check and by `runChecks`, which merges several checks' spans. */
import type { Redaction } from './types.ts';

/**
 * Replaces each span of `text` with its token. Overlapping spans (from several checks) merge under the earliest
 * one's token, so no finding is ever left half-redacted.
 */
export function applyRedactions(text: string, redactions: readonly Redaction[]): string {
  const sorted = [...redactions].sort((a, b) => a.start - b.start || b.end - a.end);
  let result = '';
  let cursor = 0;
  for (const redaction of sorted) {
    if (redaction.end <= cursor || redaction.end <= redaction.start) continue;
    if (redaction.start < cursor) {
      cursor = redaction.end; // overlaps the previous token: extend what that token covers
      continue;
    }
    result += text.slice(cursor, redaction.start) + redaction.replacement;
    cursor = redaction.end;
  }
  return result + text.slice(cursor);
}
