/**
 * Budget periods. A periodic budget counts in calendar windows, fixed and the same on every node: a week starts on
 * Monday 00:00 UTC, a month on the 1st at 00:00 UTC. The live counter of a window is keyed by its start, so a new
 * window starts from zero without anything being reset, and the old window's counter simply expires.
 * A cumulative budget (no periodic_reset) has one window that never ends.
 */
export type PeriodicReset = 'weekly' | 'monthly';

const DAY_MS = 86_400_000;

/** The start of the window `at` falls in; null for a cumulative budget. */
export function periodStart(at: Date, reset: PeriodicReset | null): Date | null {
  if (reset === null) return null;
  if (reset === 'monthly') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  // getUTCDay: 0 is Sunday; Monday starts the week (ISO 8601)
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(midnight - sinceMonday * DAY_MS);
}

/** The start of the next window (next_usage_reset_at); null for a cumulative budget. */
export function nextPeriodStart(at: Date, reset: PeriodicReset | null): Date | null {
  const start = periodStart(at, reset);
  if (start === null) return null;
  if (reset === 'monthly') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + 7 * DAY_MS);
}

/** The counter key's part for the window: its start in ms, or `all` for a cumulative budget. */
export function periodTag(start: Date | null): string {
  return start === null ? 'all' : String(start.getTime());
}

/** Whether a stored entity's window is the current one (an older window's usage no longer counts). */
export function isCurrentPeriod(stored: Date | null, now: Date, reset: PeriodicReset | null): boolean {
  const current = periodStart(now, reset);
  // a policy whose reset changed counts afresh: a weekly row is not a cumulative budget's usage, nor the reverse
  if (current === null) return stored === null;
  return stored !== null && stored.getTime() === current.getTime();
}
