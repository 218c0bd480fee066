/** Reading providers: the list of one workspace, one provider. Who sees what: access.ts. */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findIntegrationsByIds, listProviders, type IntegrationRow, type ProviderRow } from '../../storage/repositories/providers.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visibleProvider } from './access.ts';
import type { ListProvidersInput, ProviderAddress } from './inputs.ts';

type Page = { offset: number; limit: number };

/** A provider with the integration it points at (reads show the integration's slug). */
export interface ProviderWithIntegration {
  provider: ProviderRow;
  integration: IntegrationRow | undefined;
}

export async function withIntegrations(db: Db, rows: readonly ProviderRow[]): Promise<ProviderWithIntegration[]> {
  const found = await findIntegrationsByIds(db, rows.map((row) => row.integrationId));
  const byId = new Map(found.map((integration) => [integration.id, integration]));
  return rows.map((provider) => ({ provider, integration: byId.get(provider.integrationId) }));
}

/** The reference: `workspace_id` is required with an organisation key (a workspace key lists its own). */
export async function listProvidersFor(db: Db, principal: Principal, filter: ListProvidersInput, page: Page) {
  if (filter.workspace === undefined && principal.keyType === 'organisation') {
    throw invalidParam('workspace_id', 'workspace_id is required with an organisation key: name the workspace whose providers to list.');
  }
  const workspaceId = filter.workspace === undefined ? principal.workspaceId : (await visibleWorkspace(db, principal, filter.workspace)).id;
  const { total, rows } = await listProviders(db, { organisationId: principal.organisationId, workspaceId }, page);
  return { total, rows: await withIntegrations(db, rows) };
}

export async function readProvider(db: Db, principal: Principal, address: ProviderAddress): Promise<ProviderWithIntegration> {
  const row = await visibleProvider(db, principal, address);
  const [found] = await withIntegrations(db, [row]);
  return found!;
}
