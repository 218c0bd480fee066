/**
 * Reading the request log: one log by id, and a filtered list newest first in cursor pages. The cursor is opaque
 * to callers: base64url of the last row's exact time and id, so a page never skips or repeats a row however many
 * rows arrive meanwhile.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { findLog, listLogs, type LogCursor, type LogListRow } from '../../storage/repositories/log-queries.ts';
import type { RequestLogRow } from '../../storage/repositories/request-logs.ts';
import { canSeeLog, seesLogs, toLogFilter } from './filters.ts';
import type { LogQuery } from './inputs.ts';

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(cursor: LogCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(text: string, param = 'cursor'): LogCursor {
  const decoded = /^[A-Za-z0-9_-]{1,200}$/.test(text) ? Buffer.from(text, 'base64url').toString('utf8') : '';
  const [createdAt = '', id = ''] = decoded.split('|');
  if (!EXACT_TIME.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || !isUuid(id)) {
    throw invalidParam(param, `${param} must be a next_cursor from an earlier page.`);
  }
  return { createdAt, id };
}

export function logNotFound(id: string) {
  return notFound(`Log "${id}" not found.`, 'log_not_found');
}

export async function readLog(db: Db, principal: Principal, id: string): Promise<RequestLogRow> {
  const row = await findLog(db, principal.organisationId, id);
  if (!row || !canSeeLog(principal, row.workspaceId)) throw logNotFound(id);
  return row;
}

export async function listLogsPage(
  db: Db,
  principal: Principal,
  query: LogQuery,
  page: { cursor: LogCursor | undefined; limit: number },
): Promise<{ rows: LogListRow[]; nextCursor: string | null }> {
  const filter = await toLogFilter(db, principal, query);
  if (!seesLogs(principal)) return { rows: [], nextCursor: null };
  // one row more than asked says whether another page exists
  const rows = await listLogs(db, filter, page.cursor, page.limit + 1);
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  const last = shown.at(-1);
  return { rows: shown, nextCursor: more && last ? encodeCursor({ createdAt: last.exactTime, id: last.id }) : null };
}
