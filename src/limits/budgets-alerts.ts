/**
 * A budget's alerts as audit-log events: `usage_limits.threshold_reached` when its settled usage reaches
 * `alert_threshold`, `usage_limits.exhausted` when it reaches `credit_limit`; each once per window (the counter
 * script records that it was sent, atomically, so one node records it however many settle at once). Written off the
 * request path; a failed write is reported, never thrown at a request.
 */
import { isUuid } from '../core/ids.ts';
import type { Db } from '../storage/database.ts';
import { insertAuditLog } from '../storage/repositories/audit-logs.ts';
import { unitsAsNumber } from './budgets-amounts.ts';
import type { BudgetAlert } from './budgets.ts';

const RESOURCE = {
  policy: ['usage_limits_policy', '/v1/policies/usage-limits/'],
  api_key: ['api_key', '/v1/api-keys/'],
  workspace: ['workspace', '/v1/admin/workspaces/'],
  provider: ['provider', '/v1/providers/'],
} as const;

export interface BudgetAlerts {
  record(alert: BudgetAlert): void;
  /** resolves once every alert started so far is written */
  drain(): Promise<void>;
}

export function createBudgetAlerts(options: { db: Db; onError?: (error: unknown) => void }): BudgetAlerts {
  const inflight = new Set<Promise<void>>();
  async function write(alert: BudgetAlert): Promise<void> {
    const { limit, start } = alert.window;
    const { owner } = limit;
    const id = owner.kind === 'policy' ? owner.policyId : owner.id;
    const [resourceType, path] = RESOURCE[owner.kind];
    const event = {
      budget: limit.label,
      ...(owner.kind === 'policy' ? { value_key: owner.valueKey } : {}),
      type: limit.type,
      current_usage: unitsAsNumber(alert.used, limit.type),
      credit_limit: unitsAsNumber(limit.limit, limit.type),
      alert_threshold: limit.threshold < 0 ? null : unitsAsNumber(limit.threshold, limit.type),
      period_start: start?.toISOString() ?? null,
    };
    await insertAuditLog(options.db, {
      organisationId: limit.organisationId,
      workspaceId: limit.workspaceId,
      timestamp: new Date(),
      userType: 'system',
      userId: null,
      apiKeyId: alert.apiKeyId !== undefined && isUuid(alert.apiKeyId) ? alert.apiKeyId : null,
      action: alert.kind === 'threshold' ? 'usage_limits.threshold_reached' : 'usage_limits.exhausted',
      resourceType,
      resourceId: id,
      method: 'EVENT',
      uri: `${path}${id}`,
      requestId: alert.requestId ?? '',
      requestBody: JSON.stringify(event),
      queryParams: null,
      requestHeaders: null,
      clientIp: null,
      responseStatusCode: 200,
      outcome: 'success',
    });
  }
  return {
    record(alert) {
      const writing: Promise<void> = write(alert)
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => inflight.delete(writing));
      inflight.add(writing);
    },
    async drain() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
