/**
 * `create_default_provider`: an integration creates a provider (`@slug`) pointing at it in each workspace where it
 * may be used, so a client can call it at once. A workspace that already has a provider on this integration keeps
 * it; a slug taken by another provider of the workspace is a 409 naming the field that chose it.
 */
import { GatewayError, invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import {
  findIntegrationProvider,
  insertDefaultProvider,
  providerSlugTaken,
  type IntegrationRow,
} from '../../storage/repositories/integrations.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';

export interface DefaultProvider {
  id: string;
  slug: string;
  workspaceId: string;
  created: boolean;
}

function slugTaken(slug: string, param: string): GatewayError {
  return new GatewayError(409, 'conflict_error', `A provider with slug "${slug}" already exists in this workspace; choose another with ${param}, or set create_default_provider to false.`, {
    code: 'provider_slug_taken',
    param,
  });
}

export async function ensureDefaultProvider(
  db: Db,
  integration: IntegrationRow,
  workspaceId: string,
  slug: string,
  options: { actor: string; param: string },
): Promise<DefaultProvider> {
  const existing = await findIntegrationProvider(db, workspaceId, integration.id);
  if (existing) return { ...existing, workspaceId, created: false };
  // a provider path parameter is read as an id when it looks like one
  if (isUuid(slug)) throw invalidParam(options.param, `${options.param} must not have the form of a UUID.`);
  if (await providerSlugTaken(db, workspaceId, slug)) throw slugTaken(slug, options.param);
  try {
    const row = await insertDefaultProvider(db, {
      organisationId: integration.organisationId,
      workspaceId,
      integrationId: integration.id,
      slug,
      name: integration.name,
      createdBy: options.actor,
    });
    return { ...row, workspaceId, created: true };
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw slugTaken(slug, options.param);
    throw error;
  }
}
