/**
 * Budgets that hold under concurrency and across nodes. Before an attempt is sent, an estimate of what it will use
 * is reserved in every budget that applies to it, atomically and all or nothing (one script call: Redis, or the
 * in-process twin); a reservation that does not fit is refused with a 429. When the answer has ended (a stream at
 * its end) the reservation is replaced by what the request really used; an error releases it. So the settled usage
 * plus what requests in flight hold never passes a limit at admission, and the overshoot is bounded by how much
 * the requests in flight use beyond their estimates (docs/decisions.md states the bound exactly). What a request
 * spends besides its reservations (an answer a retry dropped, the semantic cache's embedding call) is charged:
 * added like a settlement, never refused, since it has already been spent.
 *
 * When the counter store cannot answer (an error, or no answer within `timeoutMs`), each budget's failure mode
 * decides (budgets-limits.ts: closed by default) and the decision is counted; after a failure the store is left
 * alone for `coolDownMs`, and the first request after that tries it again: no restart is needed.
 */
import { randomBytes } from 'node:crypto';
import type { Counter } from 'prom-client';
import type { KvStore } from '../kv/store.ts';
import { createBudgetCounters, type ReserveItem, type SettleResult } from './budgets-counters.ts';
import { currentWindow, type BudgetOwner } from './budgets-keys.ts';
import type { BudgetLimit } from './budgets-limits.ts';
import { budgetRefusal, budgetStoreDown } from './budget-refusal.ts';
import type { LimitError } from './limit-error.ts';
import { withTimeout } from '../kv/with-timeout.ts';

/** What a request uses, in units (budgets-amounts.ts); cost undefined: no price is known. */
export interface Amounts {
  tokens: number;
  cost: number | undefined;
}

/** One budget's window as a reservation holds it. */
export interface HeldWindow {
  limit: BudgetLimit;
  counter: string;
  start: Date | null;
  expiresAt: number;
  reserved: number;
}

export interface BudgetAlert {
  kind: 'threshold' | 'exhausted';
  window: HeldWindow;
  /** the settled usage that reached it, in units */
  used: number;
  requestId: string | undefined;
  apiKeyId: string | undefined;
}

export interface BudgetMetrics {
  budgetRefused: Counter<'source' | 'type'>;
  budgetAlerts: Counter<'kind' | 'source'>;
  budgetStoreFailures: Counter<'outcome'>;
}

export interface BudgetEngineOptions {
  kv: KvStore;
  /** the stored usage of a policy entity's window (units), to start its counter from when the counter is gone */
  storedUsage?: (owner: Extract<BudgetOwner, { kind: 'policy' }>, limit: BudgetLimit, start: Date | null) => Promise<number>;
  /** after every settlement: the writer stores policy entities off the request path */
  onSettled?: (window: HeldWindow, result: SettleResult) => void;
  /** a threshold reached or a budget exhausted, once per window (the audit log and the metric) */
  onAlert?: (alert: BudgetAlert) => void;
  metrics?: BudgetMetrics;
  timeoutMs?: number;
  coolDownMs?: number;
  now?: () => Date;
  onStoreError?: (error: unknown) => void;
}

export interface Reservation {
  /**
   * Replaces the reservation by what was used; undefined (the usage is not known), or a cost not known, charges
   * what was reserved: something was paid, and nobody said how much.
   */
  settle(actual: Amounts | undefined): void;
  /** Gives the reservation back (the attempt failed without using anything). */
  release(): void;
  /** resolves once the settlement (or release) has been written: for tests and shutdown */
  readonly settled: Promise<void>;
}

export interface ReserveContext {
  requestId?: string | undefined;
  apiKeyId?: string | undefined;
}

export interface BudgetEngine {
  /** A reservation in every budget, or the refusal of the first that cannot fit. */
  reserve(limits: readonly BudgetLimit[], estimate: Amounts, context?: ReserveContext): Promise<Reservation | LimitError>;
  /**
   * Adds what a request used beyond its reservations (a dropped answer, the semantic cache's embedding call) to every
   * budget, refusing nothing: it has been spent. A cost not known charges cost budgets nothing. Resolves once written.
   */
  charge(limits: readonly BudgetLimit[], used: Amounts, context?: ReserveContext): Promise<void>;
  /** Whether the budget's current window is used up (a provider's or a key's status). */
  exhausted(limit: BudgetLimit): Promise<boolean>;
  /** resolves once every settlement started so far is written (shutdown, tests) */
  drain(): Promise<void>;
}

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`the budget counter store did not answer within ${ms} ms`);
  }
}

const timedOut = (ms: number) => new StoreTimeout(ms);

export function amountFor(limit: BudgetLimit, amounts: Amounts): number {
  return limit.type === 'tokens' ? amounts.tokens : (amounts.cost ?? 0);
}

/** What a settlement charges a window: the reservation itself when the request's use (or its cost) is not known. */
function actualFor(window: HeldWindow, actual: Amounts | undefined): number {
  if (actual === undefined) return window.reserved;
  if (window.limit.type === 'cost' && actual.cost === undefined) return window.reserved;
  return amountFor(window.limit, actual);
}

/**
 * Reservation ids: unique across nodes and restarts (a random prefix per process) and cheap per request (a counter):
 * a synchronous randomBytes(8) per reservation cost ~12 µs of CPU in a profile under load.
 */
const ID_PREFIX = randomBytes(8).toString('hex');
let lastId = 0;
const reservationId = () => `${ID_PREFIX}${(lastId += 1).toString(36)}`;

const NOTHING: Reservation = { settle: () => {}, release: () => {}, settled: Promise.resolve() };

export function createBudgetEngine(options: BudgetEngineOptions): BudgetEngine {
  const counters = createBudgetCounters(options.kv);
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 500;
  const coolDownMs = options.coolDownMs ?? 1_000;
  const failures = options.metrics?.budgetStoreFailures;
  // the in-process store answers synchronously: no timer per call
  const guarded = <T>(promise: Promise<T>) => (options.kv.kind !== 'memory' ? withTimeout(promise, timeoutMs, timedOut) : promise);
  let downUntil = 0;
  const inflight = new Set<Promise<void>>();

  function failed(error: unknown): void {
    if (downUntil <= Date.now()) options.onStoreError?.(error);
    downUntil = Date.now() + coolDownMs;
  }

  function withoutStore(limits: readonly BudgetLimit[]): Reservation | LimitError {
    const closed = limits.find((limit) => limit.onStoreFailure === 'closed');
    failures?.inc({ outcome: closed ? 'closed' : 'open' });
    return closed ? budgetStoreDown(closed) : NOTHING;
  }

  async function seedOf(limit: BudgetLimit, start: Date | null): Promise<number> {
    if (limit.owner.kind !== 'policy' || !options.storedUsage) return 0;
    return options.storedUsage(limit.owner, limit, start);
  }

  /** `seeds`: per window, the stored usage a counter the store no longer has starts from (a charge's; reserve seeds its own) */
  function reservation(id: string, windows: readonly HeldWindow[], context: ReserveContext, seeds?: readonly number[]): Reservation {
    let done: Promise<void> | undefined;
    let resolveSettled: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      resolveSettled = resolve;
    });
    async function write(actual: Amounts | undefined | 'release'): Promise<void> {
      const items = windows.map((window, index) => ({
        counter: window.counter,
        reserved: window.reserved,
        actual: actual === 'release' ? 0 : actualFor(window, actual),
        limit: window.limit.limit,
        threshold: window.limit.threshold,
        expiresAt: window.expiresAt,
        seed: seeds?.[index] ?? -1,
      }));
      let results: SettleResult[];
      try {
        results = await guarded(counters.settle(id, items));
      } catch (error) {
        failed(error);
        failures?.inc({ outcome: 'settle_lost' });
        return;
      }
      windows.forEach((window, index) => {
        const result = results[index]!;
        options.onSettled?.(window, result);
        for (const kind of ['threshold', 'exhausted'] as const) {
          if (!(kind === 'threshold' ? result.alerted : result.exhausted)) continue;
          options.metrics?.budgetAlerts.inc({ kind, source: window.limit.source });
          options.onAlert?.({ kind, window, used: result.used, requestId: context.requestId, apiKeyId: context.apiKeyId });
        }
      });
    }
    const finish = (actual: Amounts | undefined | 'release') => {
      if (done) return;
      done = write(actual).finally(() => {
        inflight.delete(done!);
        resolveSettled();
      });
      inflight.add(done);
    };
    return { settle: (actual) => finish(actual), release: () => finish('release'), settled };
  }

  /** Each limit's current window holding `reserved(limit)`, and the stored usage its counter starts from. */
  async function windowsAt(limits: readonly BudgetLimit[], at: Date, reserved: (limit: BudgetLimit) => number) {
    const windows: HeldWindow[] = [];
    const seeds: number[] = [];
    for (const limit of limits) {
      const { counter, start, expiresAt } = currentWindow(limit.owner, limit.reset, at);
      windows.push({ limit, counter, start, expiresAt, reserved: reserved(limit) });
      seeds.push(await seedOf(limit, start));
    }
    return { windows, seeds };
  }

  async function charge(limits: readonly BudgetLimit[], used: Amounts, context: ReserveContext): Promise<void> {
    let windows: HeldWindow[];
    let seeds: number[];
    try {
      ({ windows, seeds } = await windowsAt(limits, now(), () => 0));
    } catch (error) {
      failed(error);
      failures?.inc({ outcome: 'settle_lost' });
      return;
    }
    // a settlement of nothing reserved: the same script, alerts and entity writes as any other
    const charged = reservation(reservationId(), windows, context, seeds);
    charged.settle(used);
    await charged.settled;
  }

  return {
    async reserve(limits, estimate, context = {}) {
      if (limits.length === 0) return NOTHING;
      if (downUntil > Date.now()) return withoutStore(limits);
      const at = now();
      let windows: HeldWindow[];
      let items: ReserveItem[];
      try {
        const held = await windowsAt(limits, at, (limit) => amountFor(limit, estimate));
        windows = held.windows;
        items = windows.map((window, index) => ({ counter: window.counter, amount: window.reserved, limit: window.limit.limit, seed: held.seeds[index]!, expiresAt: window.expiresAt }));
      } catch (error) {
        // the stored usage could not be read (the database): decide as without the store
        failed(error);
        return withoutStore(limits);
      }
      const id = reservationId();
      let result;
      try {
        result = await guarded(counters.reserve(id, items));
      } catch (error) {
        failed(error);
        return withoutStore(limits);
      }
      if (result.ok) return reservation(id, windows, context);
      const refused = windows[result.index]!;
      options.metrics?.budgetRefused.inc({ source: refused.limit.source, type: refused.limit.type });
      return budgetRefusal(refused.limit, { used: result.used, reserved: result.reserved, amount: refused.reserved }, at);
    },

    charge(limits, used, context = {}) {
      const charged = limits.filter((limit) => amountFor(limit, used) > 0);
      if (charged.length === 0) return Promise.resolve();
      if (downUntil > Date.now()) {
        failures?.inc({ outcome: 'settle_lost' });
        return Promise.resolve();
      }
      // held in flight from the start (the stored usage may be read first): drain() waits for it
      const done = charge(charged, used, context).finally(() => inflight.delete(done));
      inflight.add(done);
      return done;
    },

    async exhausted(limit) {
      if (downUntil > Date.now()) return false;
      const { counter } = currentWindow(limit.owner, limit.reset, now());
      try {
        const [state] = await guarded(counters.read([counter]));
        return state!.used >= limit.limit;
      } catch (error) {
        failed(error);
        return false;
      }
    },

    async drain() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}
