/**
 * Which rows an analytics query covers: one workspace and one time range, and the bucket size its graphs use.
 * - A workspace key sees its own workspace; `workspace_slug` is ignored for it (api-surface §3.20).
 * - An organisation key (owners and admins: the seed's "all workspaces") names any workspace of its organisation by
 *   slug or id in `workspace_slug`; without it, the default workspace. An unknown workspace is a 404.
 * - The range defaults to the 7 days up to now, and may span 5 years at most. Buckets: an hour up to 2 days, a
 *   day up to 60 days, a week (from Monday, UTC) beyond.
 */
import { canAccessWorkspace } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { forbidden, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { AnalyticsFilters, AnalyticsScope, BucketSize } from '../../storage/repositories/analytics.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import type { AnalyticsInput } from './inputs.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const DEFAULT_RANGE_MS = 7 * DAY_MS;
export const MAX_RANGE_MS = 5 * 366 * DAY_MS;
const STEP_MS: Record<BucketSize, number> = { hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS };

export interface ResolvedQuery {
  scope: AnalyticsScope;
  filters: AnalyticsFilters;
  size: BucketSize;
  /** every bucket's start (epoch ms), empty ones included */
  buckets: number[];
}

export function bucketSizeFor(rangeMs: number): BucketSize {
  if (rangeMs <= 2 * DAY_MS) return 'hour';
  if (rangeMs <= 60 * DAY_MS) return 'day';
  return 'week';
}

/** The start of the bucket `time` falls in, as PostgreSQL's date_trunc(size, time, 'UTC') computes it. */
export function bucketOf(time: number, size: BucketSize): number {
  if (size !== 'week') return Math.floor(time / STEP_MS[size]) * STEP_MS[size];
  const day = Math.floor(time / DAY_MS) * DAY_MS;
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0
  return day - weekday * DAY_MS;
}

export function bucketsBetween(from: Date, to: Date, size: BucketSize): number[] {
  const buckets: number[] = [];
  for (let start = bucketOf(from.getTime(), size); start <= to.getTime(); start += STEP_MS[size]) buckets.push(start);
  return buckets;
}

async function workspaceOf(db: Db, principal: Principal, slug: string | undefined): Promise<string> {
  if (principal.keyType === 'workspace') return principal.workspaceId;
  const workspaceId = slug === undefined ? principal.workspaceId : (await visibleWorkspace(db, principal, slug)).id;
  if (!canAccessWorkspace(principal, workspaceId)) throw forbidden('Only an organisation owner or admin (or a workspace key) can read analytics.', 'analytics_denied');
  return workspaceId;
}

export async function resolveQuery(db: Db, principal: Principal, input: AnalyticsInput, now: Date): Promise<ResolvedQuery> {
  const to = input.to ?? now;
  const from = input.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from > to) throw invalidParam('time_of_generation_max', 'time_of_generation_max must not be before time_of_generation_min.');
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw invalidParam('time_of_generation_min', 'The time range may span 5 years at most.');
  const workspaceId = await workspaceOf(db, principal, input.workspaceSlug);
  const size = bucketSizeFor(to.getTime() - from.getTime());
  const cost = input.filters.cost;
  const filters: AnalyticsFilters = {
    ...input.filters,
    // the API speaks cents, the log stores USD
    cost: cost ? { min: cost.min === undefined ? undefined : cost.min / 100, max: cost.max === undefined ? undefined : cost.max / 100 } : undefined,
  };
  return { scope: { organisationId: principal.organisationId, workspaceId, from, to }, filters, size, buckets: bucketsBetween(from, to, size) };
}

/** Cents from USD, kept to a hundredth of a cent. */
export function cents(usd: number): number {
  return Math.round(usd * 10_000) / 100;
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export function iso(time: number): string {
  return new Date(time).toISOString();
}
