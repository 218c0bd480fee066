/**
 * Which values a rate limits policy may be counting under right now: the distinct request facts its conditions
 * and group_by read, from the request log of the policy's current window. The counts themselves are never read
 * here: they live in the kv counters (src/limits/rate-limit-usage.ts).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';

export interface FactsQuery {
  organisationId: string;
  /** a workspace policy's workspace; null: every workspace of the organisation */
  workspaceId: string | null;
  since: Date;
  /** the match keys the policy reads (policy-match.ts vocabulary) */
  keys: readonly string[];
  limit: number;
}

const METADATA_PREFIX = 'metadata.';

/** The column(s) of one match key, named `c<index>` so no name from a policy reaches the SQL text. */
function columns(key: string, index: number): SQL[] {
  const name = (suffix = '') => sql.raw(`c${index}${suffix}`);
  switch (key) {
    case 'api_key':
      return [sql`api_key_id::text as ${name()}`];
    case 'workspace_id':
      return [sql`workspace_id::text as ${name()}`];
    case 'provider':
      return [sql`provider as ${name()}`, sql`provider_slug as ${name('_slug')}`];
    default:
      return key.startsWith(METADATA_PREFIX) ? [sql`metadata -> ${key.slice(METADATA_PREFIX.length)} as ${name()}`] : [];
  }
}

/** Distinct rows of `c<index>` (and `c<index>_slug` for provider) per key of `keys`; at most `limit` of them. */
export async function recentRequestFacts(db: Db, query: FactsQuery): Promise<Array<Record<string, unknown>>> {
  const selected = query.keys.flatMap(columns);
  const conditions = [
    sql`organisation_id = ${query.organisationId}::uuid`,
    sql`created_at >= ${query.since.toISOString()}::timestamptz`,
    ...(query.workspaceId === null ? [] : [sql`workspace_id = ${query.workspaceId}::uuid`]),
  ];
  const list = selected.length === 0 ? sql`1 as c` : sql.join(selected, sql`, `);
  return rowsOf<Record<string, unknown>>(await db.execute(sql`select distinct ${list} from request_logs
    where ${sql.join(conditions, sql` and `)} limit ${query.limit}`));
}
