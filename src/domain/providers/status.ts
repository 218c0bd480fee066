/**
 * A provider's status as every read shows it and every request obeys it: `expired` once `expires_at` has passed,
 * `exhausted` while its usage limit is used up, `active` otherwise. Whether a budget is used up is the budgets'
 * business (their counters): they are injected as an ExhaustionCheck, which says "never" until they are wired.
 */
import type { UsageLimit } from '../limits.ts';

export type ProviderStatus = 'active' | 'exhausted' | 'expired';

/** What a budget check needs to know about a provider. */
export interface UsageSubject {
  id: string;
  slug: string;
  organisationId: string;
  workspaceId: string;
  usageLimits: UsageLimit | null;
  /** when `reset_usage` last restarted its count; null when never */
  usageResetAt: Date | null;
}

export type ExhaustionCheck = (provider: UsageSubject) => Promise<boolean>;

export const neverExhausted: ExhaustionCheck = async () => false;

export function isExpired(expiresAt: Date | null, now: number): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now;
}

export async function providerStatus(
  provider: UsageSubject & { expiresAt: Date | null },
  now: number,
  isExhausted: ExhaustionCheck,
): Promise<ProviderStatus> {
  if (isExpired(provider.expiresAt, now)) return 'expired';
  return (await isExhausted(provider)) ? 'exhausted' : 'active';
}
