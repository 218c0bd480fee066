/**
 * Judging and counting rate limits against the kv store: one script call per check, over every limit of the
 * request (rate-limit-scripts.ts). Redis when REDIS_URL is set (every node shares the counters), the in-process
 * store otherwise.
 *
 * When the store cannot answer (an error, or no answer within `timeoutMs`), each limit's failure mode decides:
 * `open` lets the request through, `closed` refuses it with a 503; either way it is counted in
 * `gateway_rate_limit_store_failures_total`. After a failure the store is left alone for `coolDownMs`, so an outage
 * costs each request nothing more than the decision; the first check after that tries the store again, so the
 * limits come back by themselves when Redis does (ioredis reconnects in the background): no restart.
 */
import type { Counter } from 'prom-client';
import type { KvStore } from '../kv/store.ts';
import { ADD_SCRIPT, TAKE_REPLY_PER_LIMIT, TAKE_SCRIPT } from './rate-limit-scripts.ts';
import type { RateLimitRule } from './rate-limit-rules.ts';
import { withTimeout } from '../kv/with-timeout.ts';

export type TakeVerdict =
  | { allowed: true }
  /** refused by `rule`: `used` of its limit are taken, and enough frees in `waitMs` */
  | { allowed: false; storeDown: false; rule: RateLimitRule; used: number; waitMs: number }
  /** the store could not answer and `rule` fails closed */
  | { allowed: false; storeDown: true; rule: RateLimitRule; waitMs: number };

export interface RateLimiter {
  /** Judges every rule at once; when all admit, counts the request in each `requests` rule. */
  take(rules: readonly RateLimitRule[]): Promise<TakeVerdict>;
  /** Adds an answer's tokens to its `tokens` rules; never throws (a lost count is logged and counted). */
  addTokens(rules: readonly RateLimitRule[], tokens: number): Promise<void>;
}

export interface RateLimiterOptions {
  kv: KvStore;
  metrics?: { rateLimitStoreFailures: Counter<'outcome'> };
  /** how long a check waits for Redis before deciding without it */
  timeoutMs?: number;
  /** how long the store is left alone after a failure */
  coolDownMs?: number;
  now?: () => number;
  onStoreError?: (error: unknown) => void;
}

const ALLOWED: TakeVerdict = Object.freeze({ allowed: true });

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`the rate-limit counter store did not answer within ${ms} ms`);
  }
}

const timedOut = (ms: number) => new StoreTimeout(ms);

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { kv } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 500;
  const coolDownMs = options.coolDownMs ?? 1_000;
  const failures = options.metrics?.rateLimitStoreFailures;
  // the in-process store answers synchronously: no timer per check
  const run = kv.kind !== 'memory'
    ? (...args: Parameters<KvStore['runScript']>) => withTimeout(kv.runScript(...args), timeoutMs, timedOut)
    : (...args: Parameters<KvStore['runScript']>) => kv.runScript(...args);
  let downUntil = 0;

  function failed(error: unknown): void {
    if (downUntil <= now()) options.onStoreError?.(error);
    downUntil = now() + coolDownMs;
  }

  function withoutStore(rules: readonly RateLimitRule[]): TakeVerdict {
    const closed = rules.find((rule) => rule.onStoreFailure === 'closed');
    failures?.inc({ outcome: closed ? 'closed' : 'open' });
    return closed ? { allowed: false, storeDown: true, rule: closed, waitMs: Math.max(downUntil - now(), 1) } : ALLOWED;
  }

  return {
    async take(rules) {
      if (rules.length === 0) return ALLOWED;
      if (downUntil > now()) return withoutStore(rules);
      const args: Array<string | number> = [];
      for (const rule of rules) args.push(rule.window.bucketMs, rule.window.buckets, rule.limit, rule.type === 'requests' ? 1 : 0);
      let reply: unknown;
      try {
        reply = await run(TAKE_SCRIPT, rules.map((rule) => rule.counterKey), args);
      } catch (error) {
        failed(error);
        return withoutStore(rules);
      }
      if (!Array.isArray(reply) || reply.length !== 1 + rules.length * TAKE_REPLY_PER_LIMIT) {
        failed(new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`));
        return withoutStore(rules);
      }
      if (Number(reply[0]) === 1) return ALLOWED;
      // the refusal names the limit the client must wait longest for: sooner would be refused again
      let refused: TakeVerdict = ALLOWED;
      rules.forEach((rule, index) => {
        const base = 1 + index * TAKE_REPLY_PER_LIMIT;
        const waitMs = Number(reply[base + 1]);
        if (waitMs <= 0 || (!refused.allowed && refused.waitMs >= waitMs)) return;
        refused = { allowed: false, storeDown: false, rule, used: Number(reply[base]), waitMs };
      });
      return refused;
    },

    async addTokens(rules, tokens) {
      if (rules.length === 0 || !(tokens > 0)) return;
      if (downUntil > now()) {
        failures?.inc({ outcome: 'tokens_lost' });
        return;
      }
      const args: Array<string | number> = [];
      for (const rule of rules) args.push(rule.window.bucketMs, rule.window.buckets, Math.round(tokens));
      try {
        await run(ADD_SCRIPT, rules.map((rule) => rule.counterKey), args);
      } catch (error) {
        failed(error);
        failures?.inc({ outcome: 'tokens_lost' });
      }
    },
  };
}
