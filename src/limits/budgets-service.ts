/**
 * Everything the budgets step needs, built once per gateway: the engine over the counter store, the policies and
 * the inline usage limits of keys and workspaces (held in process, dropped over pub/sub when they change), the
 * writer that stores policy entities, and the alerts. A saved provider's inline limits come with its record.
 */
import { createInvalidatedCache, type InvalidatedCache } from '../kv/invalidated-cache.ts';
import type { KvStore } from '../kv/store.ts';
import type { Db } from '../storage/database.ts';
import { apiKeyUsageLimits, workspaceUsageLimits } from '../storage/repositories/usage-limit-policies.ts';
import { createBudgetAlerts } from './budgets-alerts.ts';
import { inlineBudget, type InlineBudget } from './budgets-limits.ts';
import { createUsagePolicies, type UsagePolicies } from './budgets-policies.ts';
import { createBudgetWriter, type BudgetWriter } from './budgets-writer.ts';
import { createBudgetEngine, type BudgetEngine, type BudgetMetrics } from './budgets.ts';

/** where key and workspace changes are announced (src/auth/invalidation.ts, src/domain/workspaces/request-defaults.ts) */
const KEYS_CHANGED = 'auth.invalidate';
const WORKSPACES_CHANGED = 'workspaces.changed';

export interface Budgets {
  engine: BudgetEngine;
  policies: UsagePolicies;
  writer: BudgetWriter;
  /** an API key's inline usage limit (null: none) */
  keyBudget(apiKeyId: string): Promise<InlineBudget | null>;
  workspaceBudget(workspaceId: string): Promise<InlineBudget | null>;
  /** counts requests a cost budget could not count for want of a price */
  unpriced(): void;
  /** writes what is pending (settlements, alerts, entities): tests and shutdown */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface BudgetsOptions {
  db: Db;
  kv: KvStore;
  metrics?: BudgetMetrics & { budgetUnpriced: { inc(): void } };
  onError?: (error: unknown) => void;
  /** the entity writer's interval */
  writeIntervalMs?: number;
}

function cachedBudget(cache: InvalidatedCache<InlineBudget | null>, load: (id: string) => Promise<unknown>) {
  return (id: string) => cache.get(id, async () => inlineBudget(await load(id)));
}

export async function createBudgets(options: BudgetsOptions): Promise<Budgets> {
  const { db, kv } = options;
  const policies = await createUsagePolicies(db, kv);
  const keys = await createInvalidatedCache<InlineBudget | null>(kv, KEYS_CHANGED);
  const workspaces = await createInvalidatedCache<InlineBudget | null>(kv, WORKSPACES_CHANGED);
  const writer = createBudgetWriter({ db, kv, ...(options.writeIntervalMs ? { intervalMs: options.writeIntervalMs } : {}), ...(options.onError ? { onError: options.onError } : {}) });
  const alerts = createBudgetAlerts({ db, ...(options.onError ? { onError: options.onError } : {}) });
  const engine = createBudgetEngine({
    kv,
    storedUsage: writer.storedUsage,
    onSettled: writer.onSettled,
    onAlert: alerts.record,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.onError ? { onStoreError: options.onError } : {}),
  });
  async function flush(): Promise<void> {
    await engine.drain();
    await alerts.drain();
    await writer.flush();
  }
  return {
    engine,
    policies,
    writer,
    keyBudget: cachedBudget(keys, (id) => apiKeyUsageLimits(db, id)),
    workspaceBudget: cachedBudget(workspaces, (id) => workspaceUsageLimits(db, id)),
    unpriced: () => options.metrics?.budgetUnpriced.inc(),
    flush,
    async close() {
      await flush();
      await writer.close();
      await Promise.all([policies.close(), keys.close(), workspaces.close()]);
    },
  };
}
