/**
 * Which workspaces may use an organisation integration (§3.3 Integrations > Workspaces): a row per workspace
 * (enabled, with its own usage and rate limits), and `global_workspace_access` for every workspace without a row.
 * Only admin keys see or change it: the list names other workspaces. A workspace integration belongs to its one
 * workspace, so its list is that workspace and it has nothing to change.
 *
 * A workspace enabled here gets a provider on the integration (`create_default_provider`, default true, per entry
 * or for the whole request), named by `default_provider_slug` or the integration's slug. Global access creates no
 * providers: each workspace adds its own (POST /providers). A workspace disabled keeps its provider records, which
 * stop resolving while the integration is not enabled for it.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { GatewayError, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  clearIntegrationWorkspaces,
  listIntegrationWorkspaces,
  updateIntegrationRow,
  upsertIntegrationWorkspace,
  type IntegrationRow,
  type IntegrationWorkspaceRow,
} from '../../storage/repositories/integrations.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../guardrails/access.ts';
import { managedIntegration, visibleIntegration } from './access.ts';
import { ensureDefaultProvider, type DefaultProvider } from './default-provider.ts';
import type { UpdateWorkspacesInput, WorkspaceAccessInput } from './inputs.ts';

export type WorkspaceAccess = Pick<IntegrationWorkspaceRow, 'workspaceId' | 'enabled' | 'usageLimits' | 'rateLimits'>;

export async function listWorkspaceAccess(db: Db, principal: Principal, idOrSlug: string): Promise<{ row: IntegrationRow; access: WorkspaceAccess[] }> {
  const row = await visibleIntegration(db, principal, idOrSlug);
  if (row.workspaceId !== null) return { row, access: [{ workspaceId: row.workspaceId, enabled: true, usageLimits: null, rateLimits: null }] };
  requireAdminKey(principal, 'see which workspaces use an organisation integration');
  return { row, access: await listIntegrationWorkspaces(db, row.id) };
}

async function workspaceOf(db: Db, organisationId: string, entry: WorkspaceAccessInput, index: number): Promise<string> {
  const found = await findWorkspace(db, organisationId, entry.id);
  if (!found) {
    throw new GatewayError(404, 'not_found_error', `Workspace "${entry.id}" not found.`, { code: 'workspace_not_found', param: `workspaces[${index}].id` });
  }
  return found.id;
}

export async function updateWorkspaceAccess(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateWorkspacesInput,
): Promise<{ row: IntegrationRow; providers: DefaultProvider[] }> {
  let row = await managedIntegration(db, principal, idOrSlug, 'change the workspaces of');
  if (row.workspaceId !== null) {
    throw invalidParam('workspaces', 'A workspace integration belongs to its own workspace only: its workspace access cannot be changed.');
  }
  const entries = body.workspaces ?? [];
  const ids: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const id = await workspaceOf(db, principal.organisationId, entry, index);
    if (ids.includes(id)) throw invalidParam(`workspaces[${index}].id`, `workspaces[${index}].id names a workspace already in the list.`);
    ids.push(id);
  }
  if (body.override_existing_workspace_access === true) await clearIntegrationWorkspaces(db, row.id);
  if (body.global_workspace_access !== undefined) {
    row = (await updateIntegrationRow(db, row.id, { globalWorkspaceAccess: body.global_workspace_access === null ? null : { ...body.global_workspace_access } })) ?? row;
  }
  const stored = new Map((await listIntegrationWorkspaces(db, row.id)).map((access) => [access.workspaceId, access]));
  const providers: DefaultProvider[] = [];
  for (const [index, entry] of entries.entries()) {
    const workspaceId = ids[index]!;
    const kept = stored.get(workspaceId);
    await upsertIntegrationWorkspace(db, {
      integrationId: row.id,
      workspaceId,
      enabled: entry.enabled,
      usageLimits: entry.usage_limits !== undefined ? entry.usage_limits : (kept?.usageLimits ?? null),
      rateLimits: entry.rate_limits !== undefined ? entry.rate_limits : (kept?.rateLimits ?? null),
    });
    if (!entry.enabled || (entry.create_default_provider ?? body.create_default_provider ?? true) === false) continue;
    const slug = entry.default_provider_slug ?? body.default_provider_slug ?? row.slug;
    const param = entry.default_provider_slug !== undefined ? `workspaces[${index}].default_provider_slug` : 'default_provider_slug';
    providers.push(await ensureDefaultProvider(db, row, workspaceId, slug, { actor: actorId(principal), param }));
  }
  return { row, providers };
}
