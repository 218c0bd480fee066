/**
 * Resolving a saved config for the request pipeline: `x-gateway-config: <id or slug>`, and a workspace's default.
 * The caller (src/routing/saved-configs.ts) parses the result once and holds it in process.
 */
import type { Db } from '../../storage/database.ts';
import { findCurrentConfig, findDefaultConfig, type CurrentConfig } from '../../storage/repositories/configs.ts';

/**
 * The active config `idOrSlug` of the organisation as a request of `workspaceId` may use it: one of that workspace
 * or an organisation-wide one, at its current version. Undefined otherwise (unknown, archived, another workspace's).
 */
export async function loadConfig(db: Db, organisationId: string, workspaceId: string, idOrSlug: string): Promise<CurrentConfig | undefined> {
  const found = await findCurrentConfig(db, organisationId, idOrSlug);
  if (!found || (found.workspaceId !== null && found.workspaceId !== workspaceId)) return undefined;
  return found;
}

/** The workspace's default config (`isDefault: 1`) at its current version, if it has one. */
export async function loadDefaultConfig(db: Db, organisationId: string, workspaceId: string): Promise<CurrentConfig | undefined> {
  return findDefaultConfig(db, organisationId, workspaceId);
}
