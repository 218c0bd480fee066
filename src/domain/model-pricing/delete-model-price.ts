/** DELETE /model-configs/pricing/{provider}/{model}: removes the custom price of one scope; requests fall back to the next price. */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { deleteModelPrice, findModelPrice, lockPriceScope, type ModelPriceRow } from '../../storage/repositories/model-prices.ts';
import { modelPriceNotFound, priceScope, requirePriceManager, type ModelPath } from './access.ts';
import type { PriceScopeInput } from './inputs.ts';

export async function removeModelPrice(db: Db, principal: Principal, path: ModelPath, input: PriceScopeInput): Promise<ModelPriceRow> {
  const workspaceId = await priceScope(db, principal, input.workspace);
  const scope = { organisationId: principal.organisationId, workspaceId, ...path };
  const existing = await findModelPrice(db, scope);
  if (!existing) throw modelPriceNotFound(path, workspaceId);
  requirePriceManager(principal, workspaceId, 'delete');
  await lockPriceScope(db, scope);
  await deleteModelPrice(db, existing.id);
  return existing;
}
