/**
 * The rate-limits step. Each attempt, once its target is known and before anything is sent to a provider (the
 * semantic cache's embedding call included), is judged against every limit that applies to it in one store call:
 * the organisation's policies (held in process), the API key's, the workspace's and the saved provider's inline
 * `rate_limits`. `requests` limits count the request when it is admitted; `tokens` limits are judged here and
 * counted after the answer, from its usage (a stream's once it has ended).
 *
 * A request is counted once per limit, however many attempts (fallbacks) it makes: a later attempt only counts
 * the limits an earlier one did not (a fallback to another provider counts that provider's limits). A cache hit
 * counts as a request (the client was served) and spends no tokens.
 */
import type { Principal } from '../../core/context.ts';
import { createActiveRatePolicies, type ActiveRatePolicies } from '../../domain/rate-limits-policies/active-policies.ts';
import type { WorkspaceRequestDefaults } from '../../domain/workspaces/request-defaults.ts';
import type { KvStore } from '../../kv/store.ts';
import type { LimitError } from '../../limits/limit-error.ts';
import type { RequestFacts } from '../../limits/policy-match.ts';
import { rateLimitRefusal } from '../../limits/rate-limit-refusal.ts';
import { inlineRateLimits, inlineRules, policyRules, type InlineRateLimit, type RateLimitRule, type RatePolicy } from '../../limits/rate-limit-rules.ts';
import { createRateLimiter, type RateLimiter } from '../../limits/rate-limiter.ts';
import type { RequestRecord } from '../../logging/request-record.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Db } from '../../storage/database.ts';
import type { ChosenAnswer } from '../outcome.ts';
import { answerUsage } from './usage.ts';

export interface RateLimits {
  policies: ActiveRatePolicies;
  limiter: RateLimiter;
  metrics: Pick<Metrics, 'rateLimited'> | undefined;
  close(): Promise<void>;
}

export interface RateLimitDeps {
  rateLimits: RateLimits;
}

export async function createRateLimits(options: { db: Db; kv: KvStore; metrics?: Metrics; onStoreError?: (error: unknown) => void }): Promise<RateLimits> {
  const policies = await createActiveRatePolicies(options.db, options.kv);
  const limiter = createRateLimiter({ kv: options.kv, ...(options.metrics ? { metrics: options.metrics } : {}), ...(options.onStoreError ? { onStoreError: options.onStoreError } : {}) });
  return { policies, limiter, metrics: options.metrics, close: () => policies.close() };
}

/** Where an attempt goes. */
export interface LimitedAttempt {
  /** the provider's name, as the registry knows it */
  provider: string;
  /** a saved provider's slug (`@slug`), when the attempt goes through one */
  providerSlug?: string | undefined;
  /** the saved provider's record, once resolved: its inline `rate_limits` count too */
  providerRecord?: { id: string; slug: string; rateLimits: unknown } | undefined;
}

export interface RequestRateLimits {
  /** Judges the attempt and counts it when admitted; a refusal is returned, so the caller may fall back. */
  check(target: LimitedAttempt): Promise<LimitError | undefined>;
  /** The chosen answer's tokens into the `tokens` limits of the attempt that produced it (a stream's at its end). */
  countTokens(answer: ChosenAnswer, record: RequestRecord | undefined): void;
  /**
   * Tokens used so far by a long-lived exchange (a realtime session's response) into the admitted attempt's
   * `tokens` limits, then those limits judged again: the refusal of one now used up, so the exchange can stop.
   */
  addTokens(tokens: number): Promise<LimitError | undefined>;
}

const NOTHING: RequestRateLimits = { check: async () => undefined, countTokens: () => {}, addTokens: async () => undefined };
const NO_RULES: readonly RateLimitRule[] = Object.freeze([]);

export function requestRateLimits(
  principal: Principal | undefined,
  workspace: WorkspaceRequestDefaults,
  metadata: Readonly<Record<string, unknown>>,
  deps: RateLimitDeps,
): RequestRateLimits {
  if (!principal) return NOTHING;
  const caller: Principal = principal;
  const { policies, limiter, metrics } = deps.rateLimits;
  const keyLimits = inlineRateLimits(caller.rateLimits);
  const workspaceLimits = inlineRateLimits(workspace.rateLimits);
  /** the `requests` counters this request was counted in by an earlier attempt */
  let counted: Set<string> | undefined;
  let tokenRules: readonly RateLimitRule[] = NO_RULES;

  function rulesFor(active: readonly RatePolicy[], target: LimitedAttempt, providerLimits: readonly InlineRateLimit[]): RateLimitRule[] {
    const facts: RequestFacts = {
      organisationId: caller.organisationId,
      workspaceId: caller.workspaceId,
      apiKeyId: caller.kind === 'api_key' ? caller.keyId : undefined,
      provider: target.provider,
      providerSlug: target.providerRecord?.slug ?? target.providerSlug,
      metadata,
    };
    const rules = policyRules(active, facts);
    if (keyLimits.length > 0) rules.push(...inlineRules('api_key', caller.keyId, keyLimits));
    if (workspaceLimits.length > 0) rules.push(...inlineRules('workspace', caller.workspaceId, workspaceLimits));
    const record = target.providerRecord;
    if (record && providerLimits.length > 0) rules.push(...inlineRules('provider', record.id, providerLimits, `@${record.slug}`));
    return rules;
  }

  return {
    async check(target) {
      const active = await policies(caller.organisationId);
      const providerLimits = inlineRateLimits(target.providerRecord?.rateLimits);
      // the common case, nothing to count: no store call, nothing allocated
      if (active.length === 0 && keyLimits.length === 0 && workspaceLimits.length === 0 && providerLimits.length === 0) {
        tokenRules = NO_RULES;
        return undefined;
      }
      const rules = rulesFor(active, target, providerLimits);
      tokenRules = rules.filter((rule) => rule.type === 'tokens');
      const pending = counted ? rules.filter((rule) => !counted!.has(rule.counterKey)) : rules;
      const verdict = await limiter.take(pending);
      if (!verdict.allowed) {
        if (!verdict.storeDown) metrics?.rateLimited.inc({ source: verdict.rule.source, type: verdict.rule.type });
        return rateLimitRefusal(verdict);
      }
      counted ??= new Set();
      for (const rule of pending) if (rule.type === 'requests') counted.add(rule.counterKey);
      return undefined;
    },

    async addTokens(tokens) {
      const rules = tokenRules;
      if (rules.length === 0) return undefined;
      await limiter.addTokens(rules, tokens);
      // `tokens` rules count nothing when taken: this only judges them
      const verdict = await limiter.take(rules);
      if (verdict.allowed) return undefined;
      if (!verdict.storeDown) metrics?.rateLimited.inc({ source: verdict.rule.source, type: verdict.rule.type });
      return rateLimitRefusal(verdict);
    },

    countTokens(answer, record) {
      const rules = tokenRules;
      if (rules.length === 0 || answer.kind === 'cached' || answer.kind === 'provider-error') return;
      if (answer.kind === 'json') {
        void limiter.addTokens(rules, answer.status < 300 ? (answerUsage(answer)?.total ?? 0) : 0);
        return;
      }
      // a stream's usage is known once it has been written out: the attempt ends right after the stream writer noted it
      const attempt = answer.attempt;
      const end = attempt.done;
      let ended = false;
      attempt.done = (completed) => {
        end(completed);
        if (ended) return;
        ended = true;
        void limiter.addTokens(rules, record?.usage?.total ?? 0);
      };
    },
  };
}
