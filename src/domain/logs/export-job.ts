/**
 * Running log exports on this node, in the background: keyset pages of the matching rows (newest first), each
 * written as one chunk of JSON Lines into log_export_chunks with the progress, so at most one page is ever held in
 * memory. A run writes only while it is the job's current run (its row `in_progress` with the `last_updated_at`
 * the run last wrote), so a run stops when the export is cancelled here (abort) or anywhere, or started again
 * elsewhere; it ends `success` or `failed` otherwise.
 */
import type { Db } from '../../storage/database.ts';
import { exportPage, type LogCursor, type LogFilter } from '../../storage/repositories/log-queries.ts';
import { deleteExportChunks, finishLogExport, insertExportChunk, recordExportProgress } from '../../storage/repositories/log-exports.ts';
import { exportLine, wantsBodies } from './export-fields.ts';
import type { ExportField } from './inputs.ts';

/** Rows per page and chunk; far fewer when bodies are exported (each may be up to the body cap). */
export const EXPORT_PAGE_ROWS = 1000;
export const EXPORT_PAGE_ROWS_WITH_BODIES = 100;

export interface LogExportJobs {
  /** Runs the export in the background (after any earlier run of it on this node has ended). */
  start(exportId: string, run: ExportRun): void;
  /** Stops this node's run of the export, if any. */
  cancel(exportId: string): void;
  /** Resolves once this node's run of the export (if any) has ended. */
  settled(exportId: string): Promise<void>;
  /** Stops every run and waits for them: before the database closes. */
  close(): Promise<void>;
}

/** What a run exports, and its token: the `last_updated_at` the start wrote. */
export interface ExportRun {
  filter: LogFilter;
  fields: readonly ExportField[];
  startedAt: Date;
}

export interface LogExportJobDeps {
  db: Db;
  now: () => Date;
  onError: (error: unknown, exportId: string) => void;
  pageRows?: number;
}

async function runExport(deps: LogExportJobDeps, exportId: string, run: ExportRun, signal: AbortSignal, onProgress: (at: Date) => void): Promise<void> {
  const withBodies = wantsBodies(run.fields);
  const pageRows = deps.pageRows ?? (withBodies ? EXPORT_PAGE_ROWS_WITH_BODIES : EXPORT_PAGE_ROWS);
  let token = run.startedAt;
  // a chunk an earlier run of this node wrote after the start dropped the old ones
  await deleteExportChunks(deps.db, exportId);
  let cursor: LogCursor | undefined;
  let exported = 0;
  for (let seq = 0; !signal.aborted; seq++) {
    const rows = await exportPage(deps.db, run.filter, cursor, pageRows, withBodies);
    if (rows.length === 0 || signal.aborted) break;
    let data = '';
    for (const row of rows) data += exportLine(row, run.fields);
    if (!(await insertExportChunk(deps.db, { exportId, seq, rows: rows.length, data }, token))) return;
    exported += rows.length;
    const at = nextTime(deps.now(), token);
    // false: stopped or started again meanwhile (on any node)
    if (!(await recordExportProgress(deps.db, exportId, token, exported, at))) return;
    token = at;
    onProgress(token);
    if (rows.length < pageRows) break;
    const last = rows[rows.length - 1]!;
    cursor = { createdAt: last.exactTime, id: last.id };
  }
  if (!signal.aborted) await finishLogExport(deps.db, exportId, token, 'success', nextTime(deps.now(), token), null);
}

/** A run's next token: strictly after its last one, so two updates in one millisecond stay apart. */
function nextTime(now: Date, last: Date): Date {
  return now.getTime() > last.getTime() ? now : new Date(last.getTime() + 1);
}

export function createLogExportJobs(deps: LogExportJobDeps): LogExportJobs {
  const running = new Map<string, { controller: AbortController; done: Promise<void>; token: () => Date }>();

  function start(exportId: string, run: ExportRun): void {
    const previous = running.get(exportId);
    previous?.controller.abort();
    const controller = new AbortController();
    let token = run.startedAt;
    const done = (async () => {
      await previous?.done;
      try {
        await runExport(deps, exportId, run, controller.signal, (at) => { token = at; });
      } catch (error) {
        deps.onError(error, exportId);
        const message = error instanceof Error ? error.message : String(error);
        await finishLogExport(deps.db, exportId, token, 'failed', nextTime(deps.now(), token), message.slice(0, 1000)).catch((finishError: unknown) => deps.onError(finishError, exportId));
      }
    })().finally(() => {
      if (running.get(exportId)?.controller === controller) running.delete(exportId);
    });
    running.set(exportId, { controller, done, token: () => token });
  }

  return {
    start,
    cancel(exportId) {
      running.get(exportId)?.controller.abort();
    },
    async settled(exportId) {
      // a run that starts another while it ends is waited for too
      for (let run = running.get(exportId); run; run = running.get(exportId)) await run.done;
    },
    async close() {
      const interrupted = [...running.entries()];
      for (const [, run] of interrupted) run.controller.abort();
      await Promise.all(interrupted.map(([, run]) => run.done));
      // not left `in_progress` for ever: a caller starts it again
      await Promise.all(interrupted.map(([exportId, run]) =>
        finishLogExport(deps.db, exportId, run.token(), 'failed', nextTime(deps.now(), run.token()), 'The gateway node running the export stopped; start it again.')
          .catch((error: unknown) => deps.onError(error, exportId))));
    },
  };
}
