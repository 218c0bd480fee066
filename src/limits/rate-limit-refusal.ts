/**
 * The answer to a request a rate limit refuses: `429` naming the limit (the policy's name and id, or whose inline
 * limit), with `retry-after` (seconds until enough of the window frees for this request) and `x-ratelimit-limit`,
 * `x-ratelimit-remaining`, `x-ratelimit-reset` (seconds, the same moment) for the limit that refused it. A limit
 * that fails closed while its store is unreachable answers `503` with `retry-after` instead.
 */
import { LimitError } from './limit-error.ts';
import { describeLimit } from './rate-limit-rules.ts';
import type { TakeVerdict } from './rate-limiter.ts';

type Refusal = Exclude<TakeVerdict, { allowed: true }>;

const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

export function rateLimitRefusal(verdict: Refusal): LimitError {
  const { rule } = verdict;
  const retryAfter = seconds(verdict.waitMs);
  if (verdict.storeDown) {
    return new LimitError(503, 'server_error', `The rate-limit counters cannot be reached, and ${rule.label} refuses requests until they can.`, 'rate_limit_store_unavailable', {
      'retry-after': retryAfter,
    });
  }
  const remaining = Math.max(0, Math.floor(rule.limit - verdict.used));
  const message = `Rate limit exceeded: ${rule.label} allows ${describeLimit(rule)}. Retry after ${retryAfter} s.`;
  return new LimitError(429, 'rate_limit_error', message, 'rate_limit_exceeded', {
    'retry-after': retryAfter,
    'x-ratelimit-limit': String(rule.limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': retryAfter,
  });
}
