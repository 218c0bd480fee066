/** Limits as keys and workspaces store and return them (reference §0.7 RateLimits, UsageLimits). */

/** Type aliases rather than interfaces: they are stored in JSON columns typed as plain records. */
export type RateLimit = {
  type: 'requests' | 'tokens';
  /** rpd, rph, rpm (and rps, rpw on keys) */
  unit: string;
  value: number;
};

export type UsageLimit = {
  credit_limit?: number | null;
  type?: 'cost' | 'tokens';
  alert_threshold?: number | null;
  periodic_reset?: 'monthly' | 'weekly' | null;
  periodic_reset_days?: number | null;
  next_usage_reset_at?: string | null;
};
