/**
 * Reading prices: the custom prices the caller can see, and the effective price of one model for a scope (custom
 * price of the workspace, of the organisation, then the catalog; an integration's pricing_config depends on the
 * provider a request names, so it is not part of this answer).
 */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { PricingCatalog } from '../../pricing/catalog.ts';
import { resolvePrice, type ResolvedPrice } from '../../pricing/price-lookup.ts';
import type { Db } from '../../storage/database.ts';
import { findModelPrice, listModelPrices, type ModelPriceRow } from '../../storage/repositories/model-prices.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { priceScope, type ModelPath } from './access.ts';
import type { ListModelPricesInput, PriceScopeInput } from './inputs.ts';
import { databaseSources } from './price-book.ts';

type Page = { offset: number; limit: number };

export async function listModelPricesFor(db: Db, principal: Principal, filter: ListModelPricesInput, page: Page): Promise<{ total: number; rows: ModelPriceRow[] }> {
  const workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation-wide price either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  return listModelPrices(db, {
    organisationId: principal.organisationId,
    workspaceId,
    visibleTo: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
    provider: filter.provider,
    model: filter.model,
  }, page);
}

export async function readEffectivePrice(
  db: Db,
  principal: Principal,
  path: ModelPath,
  input: PriceScopeInput,
  catalog?: PricingCatalog,
): Promise<{ resolved: ResolvedPrice; row: ModelPriceRow | undefined }> {
  const workspaceId = await priceScope(db, principal, input.workspace);
  const query = { organisationId: principal.organisationId, workspaceId, ...path };
  const resolved = await resolvePrice(query, databaseSources(db, catalog));
  if (!resolved) throw notFound(`No price is known for ${path.provider}/${path.model}.`, 'model_pricing_not_found');
  const rowScope = resolved.source === 'workspace' ? workspaceId : resolved.source === 'organisation' ? null : undefined;
  const row = rowScope === undefined ? undefined : await findModelPrice(db, { ...query, workspaceId: rowScope });
  return { resolved, row };
}
