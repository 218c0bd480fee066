/**
 * An API key's inline budget (`usage_limits`) as its group shows and resets it: a read says `exhausted` while the
 * budget's current window is used up (the budgets' counters decide, injected as an InlineExhaustionCheck), and
 * `reset_usage: true` zeroes that window on every node (the counter lives in the shared key-value store).
 */
import type { KvStore } from '../../kv/store.ts';
import { resetInlineUsage, type InlineExhaustionCheck, type InlineOwner } from '../../limits/budgets-inline.ts';
import type { ApiKeyRow } from '../../storage/repositories/api-keys.ts';

/** what a gateway without budgets wired says */
export const neverExhausted: InlineExhaustionCheck = async () => false;

function ownerOf(row: ApiKeyRow): InlineOwner {
  return { kind: 'api_key', id: row.id, organisationId: row.organisationId, workspaceId: row.workspaceId, usageLimits: row.usageLimits };
}

/** The status a read shows: the stored one, or `exhausted` while an active key's budget is used up. */
export async function keyStatus(row: ApiKeyRow, isExhausted: InlineExhaustionCheck): Promise<string> {
  if (row.status !== 'active') return row.status;
  return (await isExhausted(ownerOf(row))) ? 'exhausted' : row.status;
}

/** `reset_usage`: the key's budget counts from zero in its current window (requests in flight keep their reservations). */
export function resetKeyUsage(kv: KvStore, row: ApiKeyRow, now: Date): Promise<void> {
  return resetInlineUsage(kv, ownerOf(row), now);
}
