/**
 * A log row's `attempts` column, read back as typed tries. The row stores them as JSON records
 * (src/logging/request-record.ts AttemptLog); metrics and traces read them after the fact, so a field that is
 * missing or of the wrong type is left out of the try rather than trusted.
 */
import type { AttemptLog } from '../logging/request-record.ts';
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function attemptError(value: unknown): AttemptLog['error'] {
  if (typeof value !== 'object' || value === null) return null;
  const { type, message } = value as Record<string, unknown>;
  return { type: text(type) ?? 'error', message: text(message) ?? '' };
}

/** the row's tries, in order; tries without a provider or a start time are skipped */
export function rowAttempts(row: Pick<NewRequestLogRow, 'attempts'>): AttemptLog[] {
  const out: AttemptLog[] = [];
  for (const attempt of row.attempts ?? []) {
    const provider = text(attempt.provider);
    const started = finite(attempt.started_ms);
    if (provider === null || started === null) continue;
    out.push({
      path: text(attempt.path),
      provider,
      model: text(attempt.model),
      started_ms: started,
      duration_ms: Math.max(0, finite(attempt.duration_ms) ?? 0),
      status: finite(attempt.status),
      error: attemptError(attempt.error),
      retry: finite(attempt.retry) ?? 0,
    });
  }
  return out;
}
