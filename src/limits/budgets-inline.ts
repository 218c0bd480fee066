/**
 * The inline budgets of API keys and workspaces as their own groups see them: whether one is used up (an API key's
 * `status: exhausted`) and `reset_usage` (PUT /api-keys/{id} with `reset_usage: true` starts its window from zero).
 * A provider's reset needs nothing here: its `usage_reset_at` is part of its counter's key (budgets-keys.ts).
 */
import type { KvStore } from '../kv/store.ts';
import { createBudgetCounters } from './budgets-counters.ts';
import { currentWindow } from './budgets-keys.ts';
import { inlineBudget, inlineLimit } from './budgets-limits.ts';
import type { BudgetEngine } from './budgets.ts';

export interface InlineOwner {
  kind: 'api_key' | 'workspace';
  id: string;
  organisationId: string;
  workspaceId: string | null;
  /** the `usage_limits` as stored */
  usageLimits: unknown;
}

/** Whether an owner's inline budget is used up: what the admin reads of keys (and workspaces) are given. */
export type InlineExhaustionCheck = (owner: InlineOwner) => Promise<boolean>;

/** Whether the owner's inline budget is used up in its current window (false without one). */
export async function inlineExhausted(engine: BudgetEngine, owner: InlineOwner): Promise<boolean> {
  const budget = inlineBudget(owner.usageLimits);
  if (!budget) return false;
  const where = { organisationId: owner.organisationId, workspaceId: owner.workspaceId, name: owner.id };
  return engine.exhausted(inlineLimit({ kind: owner.kind, id: owner.id }, budget, where));
}

/** The check over one gateway's budget engine (its store timeout and cool-down apply: a read never hangs on Redis). */
export function inlineExhaustion(engine: BudgetEngine): InlineExhaustionCheck {
  return (owner) => inlineExhausted(engine, owner);
}

/** Zeroes the owner's usage in its current window (requests in flight keep their reservations). */
export async function resetInlineUsage(kv: KvStore, owner: Pick<InlineOwner, 'kind' | 'id' | 'usageLimits'>, now: Date): Promise<void> {
  const budget = inlineBudget(owner.usageLimits);
  // the window depends on the reset period; without a budget there is nothing counted to reset
  if (!budget) return;
  await createBudgetCounters(kv).reset(currentWindow({ kind: owner.kind, id: owner.id }, budget.reset, now).counter);
}
