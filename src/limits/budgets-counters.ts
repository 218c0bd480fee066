/**
 * Typed calls of the budget scripts (budgets-script.ts) over the key-value store: Redis when REDIS_URL is set
 * (every node shares the counters), the in-process twin otherwise. A budget window is addressed by its counter
 * key (budgets-keys.ts); the store adds its own prefix.
 */
import type { KvScriptReply, KvStore } from '../kv/store.ts';
import { READ_SCRIPT, RESERVE_SCRIPT, RESET_SCRIPT, SETTLE_SCRIPT } from './budgets-script.ts';

/** How long a reservation counts when its node never settles it (the node stopped): see docs/decisions.md. */
export const RESERVATION_LAPSE_MS = 15 * 60_000;

export interface ReserveItem {
  counter: string;
  /** units reserved for this request */
  amount: number;
  limit: number;
  /** the settled usage to start from when the counter does not exist yet (the stored entity's); -1: none */
  seed: number;
  /** absolute expiry of the window's counter (ms); 0: never */
  expiresAt: number;
}

export interface SettleItem {
  counter: string;
  /** what was reserved (0 when nothing was) */
  reserved: number;
  /** what the request really used; 0 releases the reservation */
  actual: number;
  limit: number;
  /** -1: no alert threshold */
  threshold: number;
  expiresAt: number;
  /** the settled usage to start from when the counter does not exist (a charge without a reservation); -1: none */
  seed?: number;
}

export interface SettleResult {
  used: number;
  /** the alert threshold was reached by this settlement (once per window and threshold) */
  alerted: boolean;
  /** the limit was reached by this settlement (once per window and limit) */
  exhausted: boolean;
}

export interface CounterState {
  /** -1 when the counter does not exist (never used in this window, or lost with the store) */
  used: number;
  reserved: number;
  /** the threshold an alert was sent for, -1 for none */
  thresholdAlerted: number;
  /** the limit an exhaustion was recorded for, -1 for none */
  exhaustedAt: number;
}

export type ReserveResult = { ok: true } | { ok: false; index: number; used: number; reserved: number };

const reservations = (counter: string) => `${counter}:r`;

function numbers(reply: KvScriptReply): number[] {
  if (!Array.isArray(reply)) throw new Error(`a budget script answered ${JSON.stringify(reply)}, not a list`);
  return reply.map((value) => Number(value));
}

export interface BudgetCounters {
  /** All or nothing over the request's budgets, atomically. */
  reserve(reservationId: string, items: readonly ReserveItem[]): Promise<ReserveResult>;
  settle(reservationId: string, items: readonly SettleItem[]): Promise<SettleResult[]>;
  /** Settled usage to 0 and alerts cleared; requests in flight keep their reservations. */
  reset(counter: string): Promise<void>;
  read(counters: readonly string[]): Promise<CounterState[]>;
}

export function createBudgetCounters(kv: KvStore, options: { lapseMs?: number } = {}): BudgetCounters {
  const lapseMs = options.lapseMs ?? RESERVATION_LAPSE_MS;
  return {
    async reserve(reservationId, items) {
      if (items.length === 0) return { ok: true };
      // loops, not flatMap: these run on every request a budget applies to
      const keys: string[] = [];
      const args: Array<string | number> = [reservationId, lapseMs];
      for (const item of items) {
        keys.push(item.counter, reservations(item.counter));
        args.push(item.amount, item.limit, item.seed, item.expiresAt);
      }
      const [index, used, reserved] = numbers(await kv.runScript(RESERVE_SCRIPT, keys, args));
      return index === 0 ? { ok: true } : { ok: false, index: index! - 1, used: used!, reserved: reserved! };
    },
    async settle(reservationId, items) {
      if (items.length === 0) return [];
      const keys: string[] = [];
      const args: Array<string | number> = [reservationId];
      for (const item of items) {
        keys.push(item.counter, reservations(item.counter));
        args.push(item.reserved, item.actual, item.limit, item.threshold, item.expiresAt, item.seed ?? -1);
      }
      const reply = numbers(await kv.runScript(SETTLE_SCRIPT, keys, args));
      return items.map((_, index) => ({ used: reply[index * 3]!, alerted: reply[index * 3 + 1] === 1, exhausted: reply[index * 3 + 2] === 1 }));
    },
    async reset(counter) {
      await kv.runScript(RESET_SCRIPT, [counter], []);
    },
    async read(counters) {
      if (counters.length === 0) return [];
      const reply = numbers(await kv.runScript(READ_SCRIPT, counters, []));
      return counters.map((_, index) => ({
        used: reply[index * 4]!,
        reserved: reply[index * 4 + 1]!,
        thresholdAlerted: reply[index * 4 + 2]!,
        exhaustedAt: reply[index * 4 + 3]!,
      }));
    },
  };
}
