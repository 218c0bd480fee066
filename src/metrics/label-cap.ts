/**
 * Bounded label values. A value a client chooses (a model name, a custom host's origin) would add a series per
 * distinct value, and a series is never freed: the first `limit` distinct values are kept as they are, every later
 * one is reported as `other`. The set of kept values is the only state, so memory is bounded by `limit`.
 */
export const OTHER = 'other';
/** the label value of a field that is not known (no provider chosen, no model named) */
export const NONE = 'none';

/** longest label value kept; a longer one is cut (a 10 kB "model name" would otherwise be stored per series) */
const MAX_VALUE_LENGTH = 128;

export interface LabelCap {
  /** the label value for `raw`: itself while fewer than `limit` values were seen, then `other` for new ones */
  value(raw: string | null | undefined): string;
  /** distinct values kept so far (at most `limit`) */
  readonly size: number;
}

export function createLabelCap(limit: number): LabelCap {
  const kept = new Set<string>();
  return {
    value(raw) {
      if (raw === null || raw === undefined || raw === '') return NONE;
      const value = raw.length > MAX_VALUE_LENGTH ? raw.slice(0, MAX_VALUE_LENGTH) : raw;
      if (kept.has(value)) return value;
      if (kept.size >= limit) return OTHER;
      kept.add(value);
      return value;
    },
    get size() {
      return kept.size;
    },
  };
}

/** `2xx`, `4xx` ...: five values, whatever status a provider invents; `none` when there was no answer */
export function statusClass(status: number | null | undefined): string {
  if (status === null || status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return NONE;
  return `${Math.floor(status / 100)}xx`;
}
