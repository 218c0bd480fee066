/**
 * The answer to a request a budget refuses: `429` naming the budget (the policy's name and id and the value key, or
 * whose inline usage limit), what it has used of what, and, for a periodic budget, `retry-after` until its window
 * starts again. `usage_limit_exhausted` when the budget is used up; `usage_limit_insufficient` when what is left is
 * less than this request's reservation (a smaller max_tokens may fit). A budget that fails closed while its counter
 * store is unreachable answers `503` instead.
 */
import { unitsAsNumber } from './budgets-amounts.ts';
import type { BudgetLimit } from './budgets-limits.ts';
import { nextPeriodStart } from './budgets-period.ts';
import { LimitError } from './limit-error.ts';

const UNIT = { tokens: 'tokens', cost: 'USD' } as const;

function retryAfter(limit: BudgetLimit, now: Date): Record<string, string> {
  const next = nextPeriodStart(now, limit.reset);
  if (next === null) return {};
  return { 'retry-after': String(Math.max(1, Math.ceil((next.getTime() - now.getTime()) / 1000))) };
}

export function budgetRefusal(limit: BudgetLimit, state: { used: number; reserved: number; amount: number }, now: Date): LimitError {
  const amount = (units: number) => `${unitsAsNumber(units, limit.type)} ${UNIT[limit.type]}`;
  const window = limit.reset === null ? '' : ` this ${limit.reset === 'weekly' ? 'week' : 'month'}`;
  const headers = retryAfter(limit, now);
  if (state.used >= limit.limit) {
    const message = `Usage limit reached: ${limit.label} has used ${amount(state.used)} of ${amount(limit.limit)}${window}; it is exhausted until it is reset or raised.`;
    return new LimitError(429, 'rate_limit_error', message, 'usage_limit_exhausted', headers);
  }
  const left = Math.max(0, limit.limit - state.used - state.reserved);
  const message = `Usage limit: ${limit.label} has ${amount(left)} left${window} (of ${amount(limit.limit)}, with ${amount(state.reserved)} held by requests in flight), and this request reserves an estimated ${amount(state.amount)}. Lower max_tokens, or wait for requests in flight to finish.`;
  return new LimitError(429, 'rate_limit_error', message, 'usage_limit_insufficient', headers);
}

export function budgetStoreDown(limit: BudgetLimit): LimitError {
  return new LimitError(503, 'server_error', `The budget counters cannot be reached, and ${limit.label} refuses requests until they can.`, 'usage_limit_store_unavailable', {
    'retry-after': '1',
  });
}
