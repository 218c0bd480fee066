/**
 * PUT /model-configs/pricing/{provider}/{model}: creates or replaces one custom price, for a workspace or
 * organisation-wide. Creating takes `model_pricing.create`, replacing `model_pricing.update`. Writers of one scope
 * are serialised (lockPriceScope), so concurrent PUTs leave one row. Prices must be exact in picodollars
 * (src/pricing/money.ts): a price with more than 10 decimals of a cent is a 400 naming its field.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { InexactPrice, priceFromPayAsYouGo, type PayAsYouGo } from '../../pricing/model-price.ts';
import type { Db } from '../../storage/database.ts';
import { findModelPrice, insertModelPrice, lockPriceScope, updateModelPrice, type ModelPriceRow } from '../../storage/repositories/model-prices.ts';
import { priceScope, requirePriceManager, requireRegisteredProvider, requireSetScope, requireSomeSetScope, type ModelPath } from './access.ts';
import type { SetModelPriceInput } from './inputs.ts';

/** The stored pricing: the prices given, checked exact, nothing derived. */
export function storablePricing(input: SetModelPriceInput): Record<string, unknown> {
  const payAsYouGo: PayAsYouGo = { ...input.pay_as_you_go };
  try {
    priceFromPayAsYouGo(payAsYouGo);
  } catch (error) {
    if (error instanceof InexactPrice) throw invalidParam(error.field, error.message, 'inexact_price');
    throw error;
  }
  const given = Object.fromEntries(Object.entries(payAsYouGo).map(([field, value]) => [field, { price: (value as { price: number }).price }]));
  return { type: 'static', pay_as_you_go: given, currency: 'USD' };
}

export async function setModelPrice(
  db: Db,
  principal: Principal,
  path: ModelPath,
  input: SetModelPriceInput,
): Promise<{ row: ModelPriceRow; created: boolean }> {
  requireSomeSetScope(principal);
  requireRegisteredProvider(path.provider);
  const workspaceId = await priceScope(db, principal, input.workspace_id);
  requirePriceManager(principal, workspaceId, 'set');
  const pricing = storablePricing(input);
  const scope = { organisationId: principal.organisationId, workspaceId, ...path };
  await lockPriceScope(db, scope);
  const existing = await findModelPrice(db, scope);
  requireSetScope(principal, existing !== undefined);
  if (existing) return { row: await updateModelPrice(db, existing.id, pricing), created: false };
  return { row: await insertModelPrice(db, scope, pricing), created: true };
}
