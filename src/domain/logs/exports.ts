/**
 * Log exports (api-surface §3.22): a job over the request log with filters and fields. Lifecycle: `draft` (made,
 * changeable) -> start -> `in_progress` -> `success` | `failed`; cancel -> `stopped`. A failed or stopped export
 * may be started again (from scratch); a running one must be cancelled first; a finished one is downloaded.
 * Who sees an export: the same rule as the logs (filters.ts); an export of every workspace is an admin's.
 */
import { randomUUID } from 'node:crypto';
import { conflict, forbidden, notFound } from '../../core/errors.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { countLogs, type LogFilter } from '../../storage/repositories/log-queries.ts';
import {
  deleteExportChunks, findLogExport, insertLogExport, listLogExports, lockLogExport, updateLogExport, type LogExportRow,
} from '../../storage/repositories/log-exports.ts';
import { DOWNLOAD_TTL_SECONDS, type DownloadFormat, type DownloadSigner } from './download-signature.ts';
import { exportFieldsOf } from './export-fields.ts';
import type { ExportRun } from './export-job.ts';
import { boundWorkspace, canSeeLog, exportFiltersQuery, seesLogs, toLogFilter } from './filters.ts';
import type { CreateExportInput, ExportField, ExportFiltersInput, UpdateExportInput } from './inputs.ts';

type Page = { offset: number; limit: number };

export function exportNotFound(id: string) {
  return notFound(`Log export "${id}" not found.`, 'log_export_not_found');
}

function requireLogReader(principal: Principal): void {
  if (!seesLogs(principal)) throw forbidden('Only a workspace key or an organisation owner or admin can export logs.', 'logs_not_visible');
}

/** The export's filter as storage runs it: its workspace binds it, whatever `filters.workspace_slug` says. */
export async function exportFilter(db: Db, principal: Principal, row: Pick<LogExportRow, 'workspaceId' | 'filters'>): Promise<LogFilter> {
  const query = exportFiltersQuery(row.filters as ExportFiltersInput);
  const filter = await toLogFilter(db, principal, { ...query, workspace: undefined }, ['filters.cost_min', 'filters.cost_max']);
  return { ...filter, workspaceId: row.workspaceId ?? undefined };
}

async function exportWorkspace(db: Db, principal: Principal, workspace: string | undefined, filters: ExportFiltersInput): Promise<string | null> {
  return (await boundWorkspace(db, principal, workspace ?? filters.workspace_slug)) ?? null;
}

export async function createExport(db: Db, principal: Principal, input: CreateExportInput, now: Date): Promise<LogExportRow> {
  requireLogReader(principal);
  const workspaceId = await exportWorkspace(db, principal, input.workspace_id, input.filters);
  const total = await countLogs(db, await exportFilter(db, principal, { workspaceId, filters: { ...input.filters } }));
  return insertLogExport(db, {
    id: randomUUID(),
    organisationId: principal.organisationId,
    workspaceId,
    filters: { ...input.filters },
    requestedData: [...exportFieldsOf(input.requested_data)],
    description: input.description ?? '',
    status: 'draft',
    total,
    createdBy: principal.userId ?? (principal.kind === 'api_key' ? principal.keyId : null),
    createdAt: now,
    lastUpdatedAt: now,
  });
}

export async function visibleExport(db: Db, principal: Principal, id: string): Promise<LogExportRow> {
  const row = await findLogExport(db, principal.organisationId, id);
  if (!row || !canSeeLog(principal, row.workspaceId)) throw exportNotFound(id);
  return row;
}

/** Visible to the caller, and locked until the transaction ends. */
async function lockedExport(db: Db, principal: Principal, id: string): Promise<LogExportRow> {
  await visibleExport(db, principal, id);
  const row = await lockLogExport(db, id);
  if (!row) throw exportNotFound(id);
  return row;
}

export async function listExports(db: Db, principal: Principal, workspace: string | undefined, page: Page): Promise<{ total: number; rows: LogExportRow[] }> {
  const workspaceId = workspace === undefined ? undefined : await boundWorkspace(db, principal, workspace);
  if (!seesLogs(principal)) return { total: 0, rows: [] };
  return listLogExports(db, {
    organisationId: principal.organisationId,
    workspaceId,
    visibleToWorkspace: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
  }, page);
}

export async function updateExport(db: Db, principal: Principal, id: string, input: UpdateExportInput, now: Date): Promise<LogExportRow> {
  const row = await lockedExport(db, principal, id);
  if (row.status !== 'draft') throw conflict(`Log export "${id}" is ${row.status}: only a draft can be changed.`, 'log_export_not_draft');
  const workspaceId = input.workspace_id === undefined && input.filters.workspace_slug === undefined
    ? row.workspaceId
    : await exportWorkspace(db, principal, input.workspace_id, input.filters);
  const total = await countLogs(db, await exportFilter(db, principal, { workspaceId, filters: { ...input.filters } }));
  return updateLogExport(db, id, {
    workspaceId,
    filters: { ...input.filters },
    ...(input.requested_data ? { requestedData: [...exportFieldsOf(input.requested_data)] } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    total,
    lastUpdatedAt: now,
  });
}

/** Moves the export to `in_progress` (its earlier result dropped); the caller runs the job once this commits. */
export async function startExport(db: Db, principal: Principal, id: string, now: Date): Promise<{ row: LogExportRow; run: ExportRun }> {
  const row = await lockedExport(db, principal, id);
  if (row.status === 'in_progress') throw conflict(`Log export "${id}" is already running.`, 'log_export_running');
  if (row.status === 'success') throw conflict(`Log export "${id}" has finished: download it, or create another.`, 'log_export_finished');
  const filter = await exportFilter(db, principal, row);
  await deleteExportChunks(db, id);
  const total = await countLogs(db, filter);
  const started = await updateLogExport(db, id, { status: 'in_progress', exportedRows: 0, total, error: null, lastUpdatedAt: now });
  return { row: started, run: { filter, fields: exportFieldsOf(row.requestedData as ExportField[]), startedAt: started.lastUpdatedAt } };
}

export async function cancelExport(db: Db, principal: Principal, id: string, now: Date): Promise<LogExportRow> {
  const row = await lockedExport(db, principal, id);
  if (row.status !== 'in_progress' && row.status !== 'draft') {
    throw conflict(`Log export "${id}" is ${row.status}: only a draft or running export can be cancelled.`, 'log_export_not_running');
  }
  return updateLogExport(db, id, { status: 'stopped', lastUpdatedAt: now });
}

/** `/downloads/log-exports/{id}?format=&expires=&signature=`: valid 15 minutes, for a finished export only. */
export async function exportDownloadPath(db: Db, principal: Principal, id: string, format: DownloadFormat, signer: DownloadSigner, now: Date): Promise<string> {
  const row = await visibleExport(db, principal, id);
  if (row.status !== 'success') throw conflict(`Log export "${id}" is ${row.status}: only a finished export can be downloaded.`, 'log_export_not_ready');
  const expires = Math.floor(now.getTime() / 1000) + DOWNLOAD_TTL_SECONDS;
  const signature = signer.sign(row.id, format, expires);
  return `/downloads/log-exports/${row.id}?format=${format}&expires=${expires}&signature=${signature}`;
}
