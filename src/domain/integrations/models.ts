/**
 * An integration's models (§3.3 Integrations > Models): the models set explicitly on it (enabled or not, custom,
 * fine-tuned), and `allow_all_models`, which lets every model of the provider through. A custom model carries its
 * price (the seed: "for custom models the pricing must be added"); a model's own custom host passes the SSRF rules.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  deleteIntegrationModels,
  listIntegrationModels,
  updateIntegrationRow,
  upsertIntegrationModels,
  type IntegrationModelRow,
  type IntegrationRow,
  type NewIntegrationModelRow,
} from '../../storage/repositories/integrations.ts';
import { managedIntegration, visibleIntegration } from './access.ts';
import { CUSTOM_HOST, type IntegrationRules } from './configurations.ts';
import type { ModelUpdateInput, UpdateModelsInput } from './inputs.ts';

export async function listModelsOf(db: Db, principal: Principal, idOrSlug: string): Promise<{ row: IntegrationRow; models: IntegrationModelRow[] }> {
  const row = await visibleIntegration(db, principal, idOrSlug);
  return { row, models: await listIntegrationModels(db, row.id) };
}

/** A stored model with what the request names over it (omitted optional fields keep their stored values). */
async function mergedModel(
  integrationId: string,
  given: ModelUpdateInput,
  stored: IntegrationModelRow | undefined,
  at: string,
  rules: IntegrationRules,
): Promise<NewIntegrationModelRow> {
  const pick = <T>(value: T | undefined, kept: T) => (value === undefined ? kept : value);
  const merged: NewIntegrationModelRow = {
    integrationId,
    slug: given.slug,
    enabled: given.enabled,
    name: pick(given.name, stored?.name ?? null),
    isCustom: pick(given.is_custom, stored?.isCustom ?? null),
    isFinetune: pick(given.is_finetune, stored?.isFinetune ?? null),
    baseModelSlug: pick(given.base_model_slug, stored?.baseModelSlug ?? null),
    configurations: pick(given.configurations, stored?.configurations ?? null),
    pricingConfig: given.pricing_config === undefined ? (stored?.pricingConfig ?? null) : given.pricing_config === null ? null : { ...given.pricing_config },
  };
  if (merged.isCustom === true && merged.pricingConfig == null) {
    throw invalidParam(`${at}.pricing_config`, `${at}.pricing_config is required for a custom model: the gateway cannot cost a model it has no price for.`);
  }
  const host = given.configurations?.[CUSTOM_HOST];
  if (host !== undefined) await rules.checkHost(host, `${at}.configurations.${CUSTOM_HOST}`);
  return merged;
}

export async function updateModels(db: Db, principal: Principal, idOrSlug: string, body: UpdateModelsInput, rules: IntegrationRules): Promise<IntegrationRow> {
  const row = await managedIntegration(db, principal, idOrSlug, 'change the models of');
  const stored = new Map((await listIntegrationModels(db, row.id)).map((model) => [model.slug, model]));
  const seen = new Set<string>();
  const merged: NewIntegrationModelRow[] = [];
  for (const [index, given] of body.models.entries()) {
    const at = `models[${index}]`;
    if (seen.has(given.slug)) throw invalidParam(`${at}.slug`, `${at}.slug: ${given.slug} is named twice.`);
    seen.add(given.slug);
    merged.push(await mergedModel(row.id, given, stored.get(given.slug), at, rules));
  }
  await upsertIntegrationModels(db, merged);
  if (body.allow_all_models === undefined) return row;
  return (await updateIntegrationRow(db, row.id, { allowAllModels: body.allow_all_models })) ?? row;
}

/** DELETE ?slugs=a,b: custom models only (a provider's own model is disabled with PUT, not deleted). */
export async function deleteModels(db: Db, principal: Principal, idOrSlug: string, slugs: readonly string[]): Promise<IntegrationRow> {
  const row = await managedIntegration(db, principal, idOrSlug, 'change the models of');
  const stored = new Map((await listIntegrationModels(db, row.id)).map((model) => [model.slug, model]));
  for (const slug of slugs) {
    const model = stored.get(slug);
    if (!model) throw notFound(`Model "${slug}" is not set on integration "${row.slug}".`, 'model_not_found');
    if (model.isCustom !== true) throw invalidParam('slugs', `Model "${slug}" is not a custom model: disable it with PUT /integrations/{slug}/models instead.`);
  }
  await deleteIntegrationModels(db, row.id, slugs);
  return row;
}
