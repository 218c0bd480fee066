/** Reads, updates and deletes (archives) a label. */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { detachLabelFromVersions, updateLabelRow, type LabelRow } from '../../storage/repositories/labels.ts';
import { labelNotFound, labelScope, managedLabel, visibleLabel } from './access.ts';
import type { LabelScopeFilter, UpdateLabelInput } from './inputs.ts';
import { refuseNameClash } from './name.ts';

/** GET /labels/{id}: a `workspace_id` filter narrows to that workspace's labels and the universal ones. */
export async function readLabel(db: Db, principal: Principal, id: string, filter: LabelScopeFilter): Promise<LabelRow> {
  const workspaceId = await labelScope(db, principal, filter);
  const row = await visibleLabel(db, principal, id);
  if (workspaceId !== undefined && row.workspaceId !== null && row.workspaceId !== workspaceId) throw labelNotFound(id);
  return row;
}

export async function updateLabel(db: Db, principal: Principal, id: string, body: UpdateLabelInput): Promise<LabelRow> {
  const row = await managedLabel(db, principal, id, 'update');
  if (body.name !== undefined && body.name !== row.name) await refuseNameClash(db, row.organisationId, row.workspaceId, body.name, row.id);
  const updated = await updateLabelRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.color_code !== undefined ? { colorCode: body.color_code } : {}),
  });
  if (!updated) throw labelNotFound(id);
  return updated;
}

/**
 * DELETE archives (api-surface §6.6): the row stays for the record, its name is free again, and the prompt
 * versions it marked lose it (a deleted label must not keep addressing a version).
 */
export async function deleteLabel(db: Db, principal: Principal, id: string): Promise<LabelRow> {
  const row = await managedLabel(db, principal, id, 'delete');
  const archived = await updateLabelRow(db, row.id, { status: 'archived' });
  if (!archived) throw labelNotFound(id);
  await detachLabelFromVersions(db, row.id);
  return archived;
}
