/**
 * Retries within one attempt: which outcomes are retried and how long to wait. Exponential backoff with jitter;
 * `retry-after-ms` / `retry-after` (seconds or an HTTP date) win when the config says use_retry_after_header.
 */
import type { PlannedRetry } from './target-settings.ts';

export const DEFAULT_RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];
export const RETRY_BASE_MS = 200;
export const RETRY_MAX_WAIT_MS = 30_000;

export function isRetryableStatus(retry: PlannedRetry, status: number): boolean {
  return (retry.onStatusCodes ?? DEFAULT_RETRY_STATUSES).includes(status);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The provider's own hint, in milliseconds, when it gives a usable one. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now: number): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const after = header(headers, 'retry-after')?.trim();
  if (after === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Wait before retry number `retry` (0 for the first retry). */
export function retryDelayMs(
  retry: PlannedRetry,
  attempt: number,
  headers: Record<string, string | string[] | undefined> | undefined,
  random: () => number,
  now: number,
): number {
  const hinted = retry.useRetryAfterHeader && headers ? retryAfterMs(headers, now) : undefined;
  if (hinted !== undefined) return Math.min(hinted, RETRY_MAX_WAIT_MS);
  const ceiling = Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_MAX_WAIT_MS);
  // "equal jitter": half fixed, half random, so waits grow but concurrent clients spread out
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
