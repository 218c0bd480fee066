/**
 * Rate limits policies for the hot path: an organisation's active policies are read once, compiled (policy-match.ts)
 * and held in process, never read from the database per request. A create, update or delete drops every node's
 * copies at once (src/kv/invalidated-cache.ts); the TTL only bounds how long a lost message could matter.
 */
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import { compilePolicyMatch } from '../../limits/policy-match.ts';
import type { RatePolicy } from '../../limits/rate-limit-rules.ts';
import { isRateUnit } from '../../limits/windows.ts';
import type { Db } from '../../storage/database.ts';
import { activeRateLimitPolicies, type RateLimitPolicyRow } from '../../storage/repositories/rate-limit-policies.ts';

const CHANGED = 'rate-limits-policies.changed';

export type ActiveRatePolicies = ((organisationId: string) => Promise<readonly RatePolicy[]>) & {
  close(): Promise<void>;
};

/** Tells every node (this one included) that rate limits policies changed. */
export async function announceRateLimitsPolicyChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

function compile(row: RateLimitPolicyRow): RatePolicy | undefined {
  // rows are validated when written; a row that does not read right is skipped rather than failing every request
  if (!isRateUnit(row.unit) || (row.type !== 'requests' && row.type !== 'tokens')) return undefined;
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    unit: row.unit,
    value: row.value,
    match: compilePolicyMatch({ workspaceId: row.workspaceId, conditions: row.conditions, groupBy: row.groupBy }),
    onStoreFailure: row.onStoreFailure === 'closed' ? 'closed' : 'open',
  };
}

const NONE: readonly RatePolicy[] = Object.freeze([]);

export async function createActiveRatePolicies(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<ActiveRatePolicies> {
  const cache = await createInvalidatedCache<readonly RatePolicy[]>(kv, CHANGED, options);
  const lookup = (organisationId: string) =>
    cache.get(organisationId, async () => {
      const compiled = (await activeRateLimitPolicies(db, organisationId)).map(compile).filter((policy) => policy !== undefined);
      // the common case (no policy) shares one frozen list
      return compiled.length === 0 ? NONE : compiled;
    });
  return Object.assign(lookup, { close: () => cache.close() });
}
