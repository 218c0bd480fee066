/**
 * Who sees and who changes a provider (the seed: "create or manage providers: admin key, all workspaces; workspace
 * key, single workspace"). A provider belongs to one workspace: seen by whoever may access it, changed by its
 * managers and organisation admins. Another workspace's provider is a 404, so its existence does not leak.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { GatewayError, invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import {
  findIntegration,
  findIntegrationAccess,
  findProvider,
  findProviderById,
  lockProvider,
  type IntegrationRow,
  type ProviderRow,
} from '../../storage/repositories/providers.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import type { ProviderAddress } from './inputs.ts';
import { workspaceMayUse } from './integration-access.ts';
import { PROVIDER_SLUG_PATTERN } from './slug.ts';

const SLUG = new RegExp(PROVIDER_SLUG_PATTERN);

/** `{slug}` path parameter: a provider's UUID or slug. */
export function providerParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.slug;
  if (typeof value !== 'string' || !SLUG.test(value)) throw invalidParam('slug', 'slug must be a provider UUID or slug.');
  return value;
}

export function providerNotFound(idOrSlug: string, kind = 'Provider'): GatewayError {
  return new GatewayError(404, 'not_found_error', `${kind} "${idOrSlug}" not found.`, { code: 'provider_not_found', param: 'slug' });
}

/**
 * The workspace a call addresses: the one named (id or slug; a workspace key may name its own only, another is a
 * 404), else the caller's (an admin key's: the organisation's default workspace, where its requests run too).
 */
export async function providerWorkspace(db: Db, principal: Principal, workspaceParam: string | undefined): Promise<string> {
  const named = await targetWorkspace(db, principal, workspaceParam);
  const workspaceId = named ?? principal.workspaceId;
  if (!canAccessWorkspace(principal, workspaceId)) {
    throw new GatewayError(404, 'not_found_error', `Workspace "${workspaceParam ?? workspaceId}" not found.`, { code: 'workspace_not_found' });
  }
  return workspaceId;
}

/**
 * A provider the caller sees. An id finds it in any workspace the caller may access; a slug is looked up in the
 * workspace the call addresses (slugs are unique per workspace).
 */
export async function visibleProvider(db: Db, principal: Principal, address: ProviderAddress, kind = 'Provider'): Promise<ProviderRow> {
  const { idOrSlug, workspace } = address;
  const row = isUuid(idOrSlug) && workspace === undefined
    ? await findProviderById(db, principal.organisationId, idOrSlug)
    : await findProvider(db, principal.organisationId, await providerWorkspace(db, principal, workspace), idOrSlug);
  if (!row || !canAccessWorkspace(principal, row.workspaceId)) throw providerNotFound(idOrSlug, kind);
  return row;
}

export function requireProviderManager(principal: Principal, workspaceId: string, what: string): void {
  requireWorkspaceManager(principal, workspaceId, `${what} its providers`);
}

/** A provider the caller may change: visible, managed by the caller, and locked until the transaction ends. */
export async function managedProvider(db: Db, principal: Principal, address: ProviderAddress, what: string, kind = 'Provider'): Promise<ProviderRow> {
  const row = await visibleProvider(db, principal, address, kind);
  requireProviderManager(principal, row.workspaceId, what);
  const locked = await lockProvider(db, row.id);
  // archived between the read and the lock
  if (!locked) throw providerNotFound(address.idOrSlug, kind);
  return locked;
}

/**
 * The integration a new provider of `workspaceId` points at (`integration_id`: slug or id). Unknown, archived, or
 * another workspace's own integration: a 404; an organisation integration not enabled for the workspace: a 403
 * saying how to enable it.
 */
export async function usableIntegration(db: Db, organisationId: string, workspaceId: string, idOrSlug: string): Promise<IntegrationRow> {
  const integration = await findIntegration(db, organisationId, idOrSlug);
  if (!integration || (integration.workspaceId !== null && integration.workspaceId !== workspaceId)) {
    throw new GatewayError(404, 'not_found_error', `Integration "${idOrSlug}" not found.`, { code: 'integration_not_found', param: 'integration_id' });
  }
  const access = integration.workspaceId === null ? await findIntegrationAccess(db, integration.id, workspaceId) : undefined;
  if (!workspaceMayUse(integration, access, workspaceId)) {
    throw new GatewayError(
      403,
      'permission_error',
      `Integration "${integration.slug}" is not enabled for this workspace: enable it with PUT /integrations/${integration.slug}/workspaces.`,
      { code: 'integration_not_enabled', param: 'integration_id' },
    );
  }
  return integration;
}
