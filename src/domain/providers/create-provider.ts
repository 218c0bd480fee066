/**
 * Creates a provider: a workspace's handle onto an integration it may use, with its own slug, limits and expiry.
 * Workspace keys create in their own workspace (managers only); admin keys in any workspace. A taken slug is a 409;
 * anything wrong leaves nothing behind (the caller's transaction).
 */
import type { Principal } from '../../core/context.ts';
import { conflict } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { insertProvider, providerSlugTaken, type IntegrationRow, type NewProviderRow, type ProviderRow } from '../../storage/repositories/providers.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { parseExpiry } from '../api-keys/rules.ts';
import { actorId } from '../guardrails/access.ts';
import { chooseSlug } from '../slugs.ts';
import { providerWorkspace, requireProviderManager, usableIntegration } from './access.ts';
import { rateLimitList, type CreateProviderInput } from './inputs.ts';
import { generateProviderSlug } from './slug.ts';

/** The row of a new provider; `extra` holds what a virtual key adds (its model settings, mappings, the flag). */
export async function insertNewProvider(
  db: Db,
  principal: Principal,
  target: { workspaceId: string; integration: IntegrationRow },
  body: Omit<CreateProviderInput, 'integration_id' | 'workspace_id'>,
  now: Date,
  extra: Pick<NewProviderRow, 'modelConfig' | 'secretMappings' | 'isVirtualKey'> = {},
): Promise<ProviderRow> {
  const { workspaceId, integration } = target;
  const expiresAt = parseExpiry(body.expires_at, now) ?? null;
  const kind = extra.isVirtualKey ? 'virtual key' : 'provider';
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => generateProviderSlug(body.name, kind.replace(' ', '-')),
    taken: (candidate) => providerSlugTaken(db, workspaceId, candidate),
    resource: `a ${kind}`,
    conflictCode: 'provider_slug_taken',
  });
  try {
    return await insertProvider(db, {
      organisationId: principal.organisationId,
      workspaceId,
      integrationId: integration.id,
      slug,
      name: body.name,
      note: body.note ?? null,
      usageLimits: body.usage_limits ?? null,
      rateLimits: rateLimitList(body.rate_limits) ?? null,
      expiresAt,
      createdBy: actorId(principal),
      ...extra,
    });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert (or an archived provider still holds it)
    if (isUniqueViolation(error)) throw conflict(`A provider with slug "${slug}" already exists in this workspace.`, 'provider_slug_taken');
    throw error;
  }
}

export async function createProvider(db: Db, principal: Principal, body: CreateProviderInput, now: Date): Promise<ProviderRow> {
  const workspaceId = await providerWorkspace(db, principal, body.workspace_id);
  requireProviderManager(principal, workspaceId, 'create');
  const integration = await usableIntegration(db, principal.organisationId, workspaceId, body.integration_id);
  return insertNewProvider(db, principal, { workspaceId, integration }, body, now);
}
