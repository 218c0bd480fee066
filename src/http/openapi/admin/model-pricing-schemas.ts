/**
 * Schemas of model pricing: the public ModelPricingConfig (api-surface §3.25, USD cents per token), a custom price
 * as the admin API shows it, a model's effective price, and the body that sets a custom price (the validating
 * constant itself). Spread into components.schemas.
 */
import { Type } from '@sinclair/typebox';
import { SetModelPriceSchema } from '../../admin/model-pricing/schemas.ts';
import { NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';

const TokenPrice = Type.Object({ price: Type.Number({ minimum: 0, description: 'USD cents per token' }) });

const PayAsYouGo = Type.Object(
  {
    request_token: Type.Optional(TokenPrice),
    response_token: Type.Optional(TokenPrice),
    cache_read_input_token: Type.Optional(TokenPrice),
    cache_write_input_token: Type.Optional(TokenPrice),
    reasoning_token: Type.Optional(TokenPrice),
    additional_units: Type.Optional(Type.Record(Type.String(), TokenPrice, { description: '`search`: per search unit (rerank models billed per search)' })),
  },
  { description: 'Prices per token in USD cents; a price nobody knows is left out (never 0).' },
);

export const ModelPricingConfigSchema = Type.Object(
  { pay_as_you_go: PayAsYouGo, currency: Type.Literal('USD') },
  { description: 'The reference\'s ModelPricingConfig: the prices charged for one model.' },
);

const ModelPriceSchema = Type.Object(
  {
    object: Type.Literal('model_price'),
    id: Uuid,
    organisation_id: Uuid,
    workspace_id: NullableUuid,
    provider: Type.String(),
    model: Type.String(),
    pay_as_you_go: PayAsYouGo,
    currency: Type.Literal('USD'),
    created_at: Timestamp,
    last_updated_at: Timestamp,
  },
  { description: 'A custom price, as it was set (workspace_id null: organisation-wide).' },
);

const EffectiveModelPricingSchema = Type.Object(
  {
    object: Type.Literal('model_pricing'),
    provider: Type.String(),
    model: Type.String(),
    source: Type.Union([Type.Literal('workspace'), Type.Literal('organisation'), Type.Literal('catalog')], { description: 'where the price comes from' }),
    id: Type.Union([Uuid, Type.Null()], { description: 'the custom price\'s id, null for the catalog' }),
    workspace_id: NullableUuid,
    pay_as_you_go: PayAsYouGo,
    currency: Type.Literal('USD'),
  },
  { description: 'What requests of the scope pay for the model (missing prices filled as charged: cached input and cache writes at the input price, reasoning at the output price).' },
);

export const MODEL_PRICING_COMPONENTS = {
  SetModelPriceRequest: SetModelPriceSchema,
  ModelPricingConfig: ModelPricingConfigSchema,
  ModelPrice: ModelPriceSchema,
  EffectiveModelPricing: EffectiveModelPricingSchema,
} as const;
