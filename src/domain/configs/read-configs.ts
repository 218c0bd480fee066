/** Reading saved configs: the list, one config at its current version, its versions. Who sees what: access.ts. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findConfigVersion, listConfigs, listConfigVersions, type ConfigRow, type ConfigVersionRow } from '../../storage/repositories/configs.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visibleConfig } from './access.ts';
import type { ListConfigsInput } from './inputs.ts';

type Page = { offset: number; limit: number };

export async function listConfigsFor(db: Db, principal: Principal, filter: ListConfigsInput, page: Page): Promise<{ total: number; rows: ConfigRow[] }> {
  const workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation-wide config either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  return listConfigs(db, {
    organisationId: principal.organisationId,
    workspaceId,
    visibleToWorkspace: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
  }, page);
}

export async function readConfig(db: Db, principal: Principal, idOrSlug: string): Promise<{ config: ConfigRow; version: ConfigVersionRow }> {
  const config = await visibleConfig(db, principal, idOrSlug);
  const version = config.currentVersionId ? await findConfigVersion(db, config.currentVersionId) : undefined;
  if (!version) throw notFound(`Config "${idOrSlug}" has no version.`, 'config_not_found');
  return { config, version };
}

/** Newest first. */
export async function listVersionsOf(db: Db, principal: Principal, idOrSlug: string, page: Page) {
  const config = await visibleConfig(db, principal, idOrSlug);
  const { total, rows } = await listConfigVersions(db, config.id, page);
  return { config, total, rows };
}
