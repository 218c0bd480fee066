/**
 * Rate-limit windows. A window is rolling: it is cut into buckets (a sixtieth of the window, a tenth for a
 * second), and a request is judged against the sum of the buckets of the last window. Why rolling buckets and
 * not a fixed window: a fixed window (`rpm` counted per calendar minute) lets a client send the whole limit at
 * the end of one minute and again at the start of the next, twice the limit within a second; a sliding log (one
 * entry per request) is exact but costs memory per request, which a `rpd` of a million cannot afford. Buckets
 * bound both: memory is at most 60 counters per limit and value key, and within any stretch of one window a
 * client gets at most the limit plus what one bucket held (rpm: one second's worth). See docs/decisions.md.
 */

export type RateUnit = 'rps' | 'rpm' | 'rph' | 'rpd' | 'rpw';

/** The units a policy takes (§3.19); API keys also take `rps` and `rpw` (§0.7). */
export const POLICY_UNITS = ['rpm', 'rph', 'rpd'] as const;
export const RATE_UNITS: readonly RateUnit[] = ['rps', 'rpm', 'rph', 'rpd', 'rpw'];

export interface RateWindow {
  unit: RateUnit;
  /** the window's length */
  windowMs: number;
  /** one bucket's length; windowMs = bucketMs * buckets */
  bucketMs: number;
  buckets: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function window(unit: RateUnit, windowMs: number, buckets: number): RateWindow {
  return Object.freeze({ unit, windowMs, bucketMs: windowMs / buckets, buckets });
}

const WINDOWS: Readonly<Record<RateUnit, RateWindow>> = {
  rps: window('rps', SECOND, 10),
  rpm: window('rpm', MINUTE, 60),
  rph: window('rph', HOUR, 60),
  rpd: window('rpd', DAY, 60),
  rpw: window('rpw', 7 * DAY, 60),
};

export function isRateUnit(unit: unknown): unit is RateUnit {
  return typeof unit === 'string' && Object.hasOwn(WINDOWS, unit);
}

export function windowOf(unit: RateUnit): RateWindow {
  return WINDOWS[unit];
}
