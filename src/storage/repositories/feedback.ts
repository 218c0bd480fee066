/**
 * Feedback on traces (api-surface §3.24): rows, and the feedback analytics. A feedback's weighted value is
 * value x weight; it belongs to the log rows of its trace (request_logs.trace_id).
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';
import { feedback } from '../schema.ts';
import { bucketStart, filtersLogRows, logConditions, type AnalyticsFilters, type AnalyticsScope, type BucketSize } from './analytics-sources.ts';

export type FeedbackRow = typeof feedback.$inferSelect;
export type NewFeedbackRow = typeof feedback.$inferInsert;

export async function insertFeedback(db: Db, values: NewFeedbackRow): Promise<FeedbackRow> {
  const [row] = await db.insert(feedback).values(values).returning();
  return row!;
}

/** A feedback of the workspace, or undefined (another workspace's is not found either). */
export async function findFeedback(db: Db, organisationId: string, workspaceId: string, id: string): Promise<FeedbackRow | undefined> {
  const [row] = await db
    .select()
    .from(feedback)
    .where(and(eq(feedback.id, id), eq(feedback.organisationId, organisationId), eq(feedback.workspaceId, workspaceId)))
    .for('update');
  return row;
}

export async function updateFeedbackRow(db: Db, id: string, values: Pick<NewFeedbackRow, 'value' | 'weight' | 'metadata' | 'updatedAt'>): Promise<void> {
  await db.update(feedback).set(values).where(eq(feedback.id, id));
}

/**
 * The feedback of the scope's workspace given in its range, narrowed to the traces whose log rows match the
 * filters when any filter is on the log; `weighted_feedback_min/max` bound each feedback's own weighted value.
 */
function feedbackSource(scope: AnalyticsScope, filters: AnalyticsFilters): SQL {
  const conditions: SQL[] = [
    sql`f.organisation_id = ${scope.organisationId}::uuid`,
    sql`f.workspace_id = ${scope.workspaceId}::uuid`,
    sql`f.created_at >= ${scope.from.toISOString()}::timestamptz`,
    sql`f.created_at <= ${scope.to.toISOString()}::timestamptz`,
  ];
  if (filters.weightedFeedback?.min !== undefined) conditions.push(sql`f.value * f.weight >= ${filters.weightedFeedback.min}`);
  if (filters.weightedFeedback?.max !== undefined) conditions.push(sql`f.value * f.weight <= ${filters.weightedFeedback.max}`);
  if (filtersLogRows(filters)) {
    const onLog = logConditions(scope, { ...filters, weightedFeedback: undefined });
    conditions.push(sql`exists (select 1 from request_logs where request_logs.trace_id = f.trace_id and ${sql.join(onLog, sql` and `)})`);
  }
  return sql`select f.*, (f.value * f.weight)::float8 as weighted from feedback f where ${sql.join(conditions, sql` and `)}`;
}

/** Count and average weighted value per time bucket, and over the range (the row whose `ts` is null). */
export async function feedbackBuckets(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, size: BucketSize) {
  const result = await db.execute(sql`select ts, count(*)::float8 as total, avg(weighted)::float8 as avg
    from (select ${bucketStart('created_at', size)} as ts, weighted from (${feedbackSource(scope, filters)}) as source) as bucketed
    group by grouping sets ((ts), ()) order by ts nulls first`);
  return rowsOf<{ ts: number | null; total: number; avg: number | null }>(result);
}

/** How many feedbacks gave each value (-10..10). */
export async function feedbackScores(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters) {
  const result = await db.execute(sql`select value as score, count(*)::float8 as total from (${feedbackSource(scope, filters)}) as source group by value order by value`);
  return rowsOf<{ score: number; total: number }>(result);
}

/** Per model of the trace's latest log row: how many feedbacks, and their average weighted value. */
export async function feedbackByModel(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters) {
  const result = await db.execute(sql`select latest.model as ai_model, count(*)::float8 as total, avg(source.weighted)::float8 as avg_weighted_feedback
    from (${feedbackSource(scope, filters)}) as source
    left join lateral (
      select model from request_logs where request_logs.organisation_id = source.organisation_id and request_logs.trace_id = source.trace_id
      order by created_at desc limit 1
    ) as latest on true
    group by latest.model order by 2 desc, 1 nulls last`);
  return rowsOf<{ ai_model: string | null; total: number; avg_weighted_feedback: number | null }>(result);
}
