/**
 * A rate limits policy's current consumption: one entry per value of its group_by that has counted in the
 * current rolling window, read from the live kv counters the rate limiter judges against (the same keys:
 * rate-limit-rules.ts policyRule). The counters cannot be listed, so the values come from the request log of the
 * window (the request facts the policy reads, matched as the hot path matches them): a request the log has not
 * written yet (it writes in batches, within a second or so) shows once it has.
 */
import type { KvStore } from '../../kv/store.ts';
import { compilePolicyMatch, METADATA_PREFIX, type RequestFacts } from '../../limits/policy-match.ts';
import { policyRule } from '../../limits/rate-limit-rules.ts';
import { readRateCounters } from '../../limits/rate-limit-usage.ts';
import { isRateUnit, windowOf } from '../../limits/windows.ts';
import type { Db } from '../../storage/database.ts';
import type { RateLimitPolicyRow } from '../../storage/repositories/rate-limit-policies.ts';
import { recentRequestFacts } from '../../storage/repositories/rate-limit-usage.ts';

/** distinct request facts read from the log, and value keys reported */
const MAX_FACTS = 2000;
const MAX_ENTRIES = 100;

export interface RateUsageEntry {
  /** the group_by value: `api_key:<id>`, `metadata._user:ada,workspace_id:<id>` */
  entity: string;
  /** the start of the rolling window the count covers (ISO-8601) */
  window_start: string;
  /** requests (or tokens, for a tokens policy) counted in the window */
  count: number;
  limit: number;
}

function factsOf(row: Record<string, unknown>, keys: readonly string[], organisationId: string): RequestFacts {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const facts: RequestFacts = { organisationId, workspaceId: '', apiKeyId: undefined, provider: undefined, providerSlug: undefined, metadata: {} };
  const metadata: Record<string, unknown> = {};
  keys.forEach((key, index) => {
    const value = row[`c${index}`];
    if (key === 'api_key') facts.apiKeyId = text(value);
    else if (key === 'workspace_id') facts.workspaceId = text(value) ?? '';
    else if (key === 'provider') {
      facts.provider = text(value);
      facts.providerSlug = text(row[`c${index}_slug`]);
    } else if (key.startsWith(METADATA_PREFIX)) metadata[key.slice(METADATA_PREFIX.length)] = value;
  });
  return { ...facts, metadata };
}

/**
 * Entries with a count in the current window, the highest first; empty for an archived policy; null while the
 * counter store cannot be read (the policy itself still reads).
 */
export async function rateLimitsPolicyUsage(db: Db, kv: KvStore, policy: RateLimitPolicyRow, now: Date): Promise<RateUsageEntry[] | null> {
  if (policy.status !== 'active' || !isRateUnit(policy.unit) || (policy.type !== 'requests' && policy.type !== 'tokens')) return [];
  const window = windowOf(policy.unit);
  const keys = [...new Set([...policy.groupBy.map(({ key }) => key), ...policy.conditions.map(({ key }) => key)])];
  const rows = await recentRequestFacts(db, {
    organisationId: policy.organisationId,
    workspaceId: policy.workspaceId,
    // one bucket more than the window: the log's clock and the store's may differ a little
    since: new Date(now.getTime() - window.windowMs - window.bucketMs),
    keys,
    limit: MAX_FACTS,
  });
  const match = compilePolicyMatch({ workspaceId: policy.workspaceId, conditions: policy.conditions, groupBy: policy.groupBy });
  const valueKeys = new Set<string>();
  for (const row of rows) {
    const facts = factsOf(row, keys, policy.organisationId);
    // a policy that does not read the workspace matches whatever the request's was
    const valueKey = match(keys.includes('workspace_id') ? facts : { ...facts, workspaceId: policy.workspaceId ?? '' });
    if (valueKey !== undefined) valueKeys.add(valueKey);
  }
  if (valueKeys.size === 0) return [];
  const compiled = { id: policy.id, name: policy.name, type: policy.type === 'tokens' ? 'tokens' as const : 'requests' as const, unit: policy.unit, value: policy.value, match };
  const entities = [...valueKeys];
  let reading: Awaited<ReturnType<typeof readRateCounters>>;
  try {
    reading = await readRateCounters(kv, window, entities.map((valueKey) => policyRule(compiled, valueKey).counterKey));
  } catch {
    return null;
  }
  const windowStart = new Date(reading.windowStart).toISOString();
  return entities
    .map((entity, index) => ({ entity, window_start: windowStart, count: reading.counts[index]!, limit: policy.value }))
    .filter((entry) => entry.count > 0)
    .sort((a, b) => b.count - a.count || a.entity.localeCompare(b.entity))
    .slice(0, MAX_ENTRIES);
}
