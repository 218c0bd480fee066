/**
 * Who a budget belongs to, and the counter key of its window. A usage limits policy counts per value key
 * (`budget:p:<policy>:<window>:metadata._user:ada`: the value key last, as it may hold `:`; a long one hashed); an inline budget
 * belongs to one API key, workspace or provider. A provider's window also carries the time its usage was last
 * reset (`usage_reset_at`), so a reset starts a fresh counter on every node without touching the old one.
 */
import { createHash } from 'node:crypto';
import { nextPeriodStart, periodStart, periodTag, type PeriodicReset } from './budgets-period.ts';

export type BudgetOwner =
  | { kind: 'policy'; policyId: string; valueKey: string }
  | { kind: 'api_key'; id: string }
  | { kind: 'workspace'; id: string }
  | { kind: 'provider'; id: string; resetAt: Date | null };

const LETTER = { api_key: 'k', workspace: 'w', provider: 'v' } as const;

/** Long value keys (metadata can be long) are hashed, so a counter key stays short. */
function valuePart(valueKey: string): string {
  return valueKey.length <= 200 ? valueKey : `sha256:${createHash('sha256').update(valueKey).digest('hex')}`;
}

/** a window's counter outlives its end by a day: a request that started inside it still settles there */
const GRACE_MS = 86_400_000;

export function counterKey(owner: BudgetOwner, start: Date | null): string {
  const window = periodTag(start);
  switch (owner.kind) {
    case 'policy':
      return `budget:p:${owner.policyId}:${window}:${valuePart(owner.valueKey)}`;
    case 'provider':
      return `budget:v:${owner.id}:${owner.resetAt?.getTime() ?? 0}:${window}`;
    default:
      return `budget:${LETTER[owner.kind]}:${owner.id}:${window}`;
  }
}

/** The counter key of the window `now` falls in, and when that counter may expire (0: never). */
export function currentWindow(owner: BudgetOwner, reset: PeriodicReset | null, now: Date): { counter: string; start: Date | null; expiresAt: number } {
  const start = periodStart(now, reset);
  const next = nextPeriodStart(now, reset);
  return { counter: counterKey(owner, start), start, expiresAt: next === null ? 0 : next.getTime() + GRACE_MS };
}
