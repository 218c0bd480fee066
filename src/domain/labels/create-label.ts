/**
 * Creates a label: in the caller's workspace for a workspace key (managers only), in the named workspace or
 * organisation-wide (universal) for an admin key. A name already used where the label would be seen is a 409.
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { insertLabel, type LabelRow } from '../../storage/repositories/labels.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../prompt-collections/access.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requireLabelManager } from './access.ts';
import type { CreateLabelInput } from './inputs.ts';
import { refuseNameClash } from './name.ts';

export async function createLabel(db: Db, principal: Principal, body: CreateLabelInput): Promise<LabelRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireLabelManager(principal, workspaceId, 'create');
  await refuseNameClash(db, principal.organisationId, workspaceId, body.name);
  try {
    return await insertLabel(db, {
      organisationId: principal.organisationId,
      workspaceId,
      name: body.name,
      description: body.description ?? null,
      colorCode: body.color_code ?? null,
      isUniversal: workspaceId === null,
      createdBy: actorId(principal),
    });
  } catch (error) {
    // a concurrent create took the name between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A label named "${body.name}" already exists.`, 'label_name_taken');
    throw error;
  }
}
