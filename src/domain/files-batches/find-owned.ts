/**
 * A file, batch or fine-tuning job of the caller's workspace, by the provider's id. One of another workspace (or
 * one the gateway never saw created) is a 404, the same answer either way: its existence does not leak.
 */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findBatch, findFile, findFineTuningJob, type BatchRow, type FileRow, type FineTuningJobRow } from '../../storage/repositories/files-batches.ts';

function missing(what: string, id: string) {
  return notFound(`No ${what} "${id.slice(0, 200)}" in this workspace.`, `${what.replace(/ /g, '_')}_not_found`);
}

/** No provider id is longer, or holds a control character (a NUL would not even reach the database). */
const PLAUSIBLE_ID = /^[^\u0000-\u001f\u007f]{1,1024}$/;

export async function ownedFile(db: Db, principal: Principal, id: string): Promise<FileRow> {
  const row = PLAUSIBLE_ID.test(id) ? await findFile(db, principal.workspaceId, id) : undefined;
  if (!row) throw missing('file', id);
  return row;
}

export async function ownedBatch(db: Db, principal: Principal, id: string): Promise<BatchRow> {
  const row = PLAUSIBLE_ID.test(id) ? await findBatch(db, principal.workspaceId, id) : undefined;
  if (!row) throw missing('batch', id);
  return row;
}

export async function ownedFineTuningJob(db: Db, principal: Principal, id: string): Promise<FineTuningJobRow> {
  const row = PLAUSIBLE_ID.test(id) ? await findFineTuningJob(db, principal.workspaceId, id) : undefined;
  if (!row) throw missing('fine-tuning job', id);
  return row;
}
