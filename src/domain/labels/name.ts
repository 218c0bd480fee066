/**
 * A label's name (api-surface §3.13): `latest`, `default` and numbers address a prompt version themselves
 * (`prompt@latest`, `prompt@3`), so a label cannot take them; `@` and whitespace would break that addressing.
 */
import { conflict } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { clashingLabel } from '../../storage/repositories/labels.ts';

export const LABEL_NAME_PATTERN = '^(?!latest$)(?!default$)(?!\\d+$)[a-zA-Z0-9_-]*[^@\\s]?[a-zA-Z0-9_-]*$';

/**
 * A name must say one label wherever it can be used: a workspace label cannot share the name of an
 * organisation-wide one (nor of another label of its workspace), and an organisation-wide label cannot share the
 * name of any label of the organisation.
 */
export async function refuseNameClash(db: Db, organisationId: string, workspaceId: string | null, name: string, exceptId?: string): Promise<void> {
  const clash = await clashingLabel(db, organisationId, workspaceId, name, exceptId);
  if (!clash) return;
  const where = clash.workspaceId === null ? 'organisation-wide' : 'in a workspace';
  throw conflict(`A label named "${name}" already exists ${where}.`, 'label_name_taken');
}
