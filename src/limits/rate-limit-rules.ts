/**
 * The rate limits a request is judged against, from every source: the organisation's policies that apply to it
 * (policy-match.ts), and the inline `rate_limits` of its API key, its workspace and the saved provider it goes to.
 * Each limit is one counter in the kv store; its key names the source, so two sources never share a counter.
 */
import { createHash } from 'node:crypto';
import type { PolicyMatcher, RequestFacts } from './policy-match.ts';
import { isRateUnit, windowOf, type RateUnit, type RateWindow } from './windows.ts';

export type RateLimitType = 'requests' | 'tokens';
export type LimitSource = 'policy' | 'api_key' | 'workspace' | 'provider';

/** What a node does with a limit when the counter store cannot be reached. */
export type StoreFailureMode = 'open' | 'closed';

/**
 * Rate limits let requests through while Redis is unreachable (counted in
 * `gateway_rate_limit_store_failures_total`): a rate limit protects throughput, and a counter outage should not
 * take every request down with it. docs/decisions.md; a policy field can override it once the schema has one.
 */
export const DEFAULT_STORE_FAILURE_MODE: StoreFailureMode = 'open';

/** An active policy, compiled for the hot path. */
export interface RatePolicy {
  id: string;
  name: string | null;
  type: RateLimitType;
  unit: RateUnit;
  value: number;
  match: PolicyMatcher;
  onStoreFailure?: StoreFailureMode;
}

/** An inline limit as keys, workspaces and providers store it (§0.7 RateLimits). */
export interface InlineRateLimit {
  type: RateLimitType;
  unit: RateUnit;
  value: number;
}

export interface RateLimitRule {
  /** the counter's key in the kv store */
  counterKey: string;
  source: LimitSource;
  /** named in a refusal: the policy, or whose inline limit */
  label: string;
  type: RateLimitType;
  window: RateWindow;
  limit: number;
  onStoreFailure: StoreFailureMode;
}

const parsed = new WeakMap<object, readonly InlineRateLimit[]>();
const NONE: readonly InlineRateLimit[] = Object.freeze([]);

function inlineLimit(value: unknown): InlineRateLimit | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, unit, value: limit } = value as Record<string, unknown>;
  if ((type !== 'requests' && type !== 'tokens') || !isRateUnit(unit)) return undefined;
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0) return undefined;
  return { type, unit, value: limit };
}

/**
 * Inline limits as stored (an array, or a single object where the reference has one: providers, virtual keys);
 * anything that does not read as a limit is left out. Parsed once per stored value.
 */
export function inlineRateLimits(stored: unknown): readonly InlineRateLimit[] {
  if (typeof stored !== 'object' || stored === null) return NONE;
  const cached = parsed.get(stored);
  if (cached) return cached;
  const list = (Array.isArray(stored) ? stored : [stored]).map(inlineLimit).filter((limit) => limit !== undefined);
  const result = list.length === 0 ? NONE : Object.freeze(list);
  parsed.set(stored, result);
  return result;
}

/** Long value keys (metadata can be long) are hashed, so a counter key stays short. */
function keyPart(valueKey: string): string {
  return valueKey.length <= 200 ? valueKey : `sha256:${createHash('sha256').update(valueKey).digest('hex')}`;
}

const UNIT_WORDS: Record<RateUnit, string> = { rps: 'second', rpm: 'minute', rph: 'hour', rpd: 'day', rpw: 'week' };

export function describeLimit(rule: Pick<RateLimitRule, 'type' | 'limit' | 'window'>): string {
  return `${rule.limit} ${rule.type} per ${UNIT_WORDS[rule.window.unit]}`;
}

export function policyRule(policy: RatePolicy, valueKey: string): RateLimitRule {
  const named = policy.name ? `"${policy.name}" (${policy.id})` : policy.id;
  return {
    // the unit is part of the key: a PUT that changes it starts a counter with buckets of the new size
    counterKey: `rl:p:${policy.id}:${policy.unit}:${keyPart(valueKey)}`,
    source: 'policy',
    label: `rate limits policy ${named} for ${valueKey}`,
    type: policy.type,
    window: windowOf(policy.unit),
    limit: policy.value,
    onStoreFailure: policy.onStoreFailure ?? DEFAULT_STORE_FAILURE_MODE,
  };
}

const SOURCE_PREFIX: Record<Exclude<LimitSource, 'policy'>, string> = { api_key: 'k', workspace: 'w', provider: 'v' };
const SOURCE_LABEL: Record<Exclude<LimitSource, 'policy'>, string> = { api_key: 'API key', workspace: 'workspace', provider: 'provider' };

/** Inline limits of one owner; two limits of the same type and unit keep the lower one (they share a counter). */
export function inlineRules(source: Exclude<LimitSource, 'policy'>, ownerId: string, limits: readonly InlineRateLimit[], ownerName = ownerId): RateLimitRule[] {
  const rules = new Map<string, RateLimitRule>();
  for (const limit of limits) {
    const counterKey = `rl:${SOURCE_PREFIX[source]}:${ownerId}:${limit.type}:${limit.unit}`;
    const existing = rules.get(counterKey);
    if (existing && existing.limit <= limit.value) continue;
    rules.set(counterKey, {
      counterKey,
      source,
      label: `the rate limit of ${SOURCE_LABEL[source]} ${ownerName}`,
      type: limit.type,
      window: windowOf(limit.unit),
      limit: limit.value,
      onStoreFailure: DEFAULT_STORE_FAILURE_MODE,
    });
  }
  return [...rules.values()];
}

/** The policies that apply to the request (its attempt's provider included), as rules. */
export function policyRules(policies: readonly RatePolicy[], facts: RequestFacts): RateLimitRule[] {
  const rules: RateLimitRule[] = [];
  for (const policy of policies) {
    const valueKey = policy.match(facts);
    if (valueKey !== undefined) rules.push(policyRule(policy, valueKey));
  }
  return rules;
}
