/**
 * GET /api-keys: the keys of every kind the caller may list (one `<kind>.list` scope each; workspace callers list
 * workspace keys only), of one workspace or all the caller sees. Another workspace is a 404 to a workspace key.
 */
import { hasScope } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { forbidden } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { listApiKeys } from '../../storage/repositories/api-keys.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import type { ListApiKeysInput } from './inputs.ts';
import { KEY_KINDS } from './kinds.ts';

export async function listKeysFor(db: Db, principal: Principal, filter: ListApiKeysInput, page: { offset: number; limit: number }) {
  const kinds = KEY_KINDS.filter((kind) => hasScope(principal, `${kind.resource}.list`))
    .filter((kind) => principal.keyType === 'organisation' || kind.type === 'workspace');
  if (kinds.length === 0) throw forbidden('This key lacks every api key list scope (e.g. "workspace_service_api_keys.list").', 'missing_scope');
  let workspaceId: string | undefined;
  if (filter.workspace !== undefined) workspaceId = (await visibleWorkspace(db, principal, filter.workspace)).id;
  else if (principal.keyType === 'workspace') workspaceId = principal.workspaceId;
  return listApiKeys(db, { organisationId: principal.organisationId, workspaceId, kinds }, page);
}
