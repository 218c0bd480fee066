/**
 * Policy entities in the database, kept off the request path. The live counters (kv) are what every node counts
 * against; the `usage_limit_entities` rows are what the admin API lists and searches, and where a counter starts
 * from when the store lost it (the embedded store after a restart, a flushed Redis).
 *
 * - Each settlement marks its policy entity dirty; every `intervalMs` (or once `batchSize` wait) the dirty
 *   counters are read back from the store, all at once, and written in one statement: absolute values, so two
 *   nodes writing the same entity write the same thing.
 * - The stored usage a counter starts from is read once per window and process, then followed from the
 *   settlements this node sees (held in a bounded LRU).
 */
import { boundedLru } from '../core/lru.ts';
import type { KvStore } from '../kv/store.ts';
import type { Db } from '../storage/database.ts';
import { findUsageLimitEntityByValue, saveUsageLimitEntities, type EntityUsage } from '../storage/repositories/usage-limit-policies.ts';
import { fromUnits, toUnits } from './budgets-amounts.ts';
import { createBudgetCounters, type SettleResult } from './budgets-counters.ts';
import type { BudgetOwner } from './budgets-keys.ts';
import type { BudgetLimit } from './budgets-limits.ts';
import { isCurrentPeriod } from './budgets-period.ts';
import type { HeldWindow } from './budgets.ts';

type PolicyOwner = Extract<BudgetOwner, { kind: 'policy' }>;

export interface BudgetWriter {
  storedUsage(owner: PolicyOwner, limit: BudgetLimit, start: Date | null): Promise<number>;
  onSettled(window: HeldWindow, result: SettleResult): void;
  /** writes what is dirty now; resolves when it is stored (tests, shutdown) */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface BudgetWriterOptions {
  db: Db;
  kv: KvStore;
  intervalMs?: number;
  batchSize?: number;
  onError?: (error: unknown) => void;
}

interface Dirty {
  owner: PolicyOwner;
  limit: BudgetLimit;
  counter: string;
  start: Date | null;
}

export function createBudgetWriter(options: BudgetWriterOptions): BudgetWriter {
  const { db } = options;
  const counters = createBudgetCounters(options.kv);
  const intervalMs = options.intervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 100;
  const known = boundedLru<string, number>(100_000);
  const loading = new Map<string, Promise<number>>();
  let dirty = new Map<string, Dirty>();
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  async function load(owner: PolicyOwner, limit: BudgetLimit, start: Date | null): Promise<number> {
    const row = await findUsageLimitEntityByValue(db, owner.policyId, owner.valueKey);
    if (!row || !isCurrentPeriod(row.periodStart, start ?? new Date(), limit.reset)) return 0;
    return toUnits(row.currentUsage, limit.type) ?? 0;
  }

  async function write(batch: Map<string, Dirty>): Promise<void> {
    const entries = [...batch.values()];
    const states = await counters.read(entries.map((entry) => entry.counter));
    const at = new Date();
    const rows: EntityUsage[] = [];
    entries.forEach((entry, index) => {
      const state = states[index]!;
      if (state.used < 0) return;
      rows.push({
        policyId: entry.owner.policyId,
        valueKey: entry.owner.valueKey,
        currentUsage: fromUnits(state.used, entry.limit.type),
        status: state.used >= entry.limit.limit ? 'exhausted' : 'active',
        periodStart: entry.start,
        thresholdAlertedAt: state.thresholdAlerted >= 0 ? at : null,
        exhaustedAlertedAt: state.exhaustedAt >= 0 ? at : null,
      });
    });
    await saveUsageLimitEntities(db, rows);
  }

  function flush(): Promise<void> {
    if (dirty.size === 0) return writing;
    const batch = dirty;
    dirty = new Map();
    // one write at a time: a later batch never lands before an earlier one
    writing = writing.then(() => write(batch)).catch((error: unknown) => {
      // kept for the next write (unless a newer settlement marked it again meanwhile)
      for (const [counter, entry] of batch) if (!dirty.has(counter)) dirty.set(counter, entry);
      options.onError?.(error);
    });
    return writing;
  }

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    storedUsage(owner, limit, start) {
      const counter = `${owner.policyId}\u0000${start?.getTime() ?? 'all'}\u0000${owner.valueKey}`;
      const seen = known.get(counter);
      if (seen !== undefined) return Promise.resolve(seen);
      let pending = loading.get(counter);
      if (!pending) {
        pending = load(owner, limit, start).finally(() => loading.delete(counter));
        loading.set(counter, pending);
        void pending.then((value) => known.set(counter, value), () => {});
      }
      return pending;
    },

    onSettled(window, result) {
      const { owner } = window.limit;
      if (owner.kind !== 'policy') return;
      known.set(`${owner.policyId}\u0000${window.start?.getTime() ?? 'all'}\u0000${owner.valueKey}`, result.used);
      if (closed) return;
      dirty.set(window.counter, { owner, limit: window.limit, counter: window.counter, start: window.start });
      if (dirty.size >= batchSize) void flush();
    },

    flush,

    async close() {
      closed = true;
      clearInterval(timer);
      await flush();
    },
  };
}
