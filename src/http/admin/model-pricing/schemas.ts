/**
 * Bodies of the model-pricing group: the reference's ModelPricingConfig (api-surface §3.25) for one model, in USD
 * cents per token. `type: "static"` (the integration models' pricing_config) and `currency: "USD"` are accepted so
 * the same object works in both places. Whether a price is exact in picodollars is the use case's check.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { SetModelPriceInput } from '../../../domain/model-pricing/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

/** USD cents per token; 10^6 cents (ten thousand dollars) a token is past any real price */
const TokenPrice = Type.Object({ price: Type.Number({ minimum: 0, maximum: 1_000_000 }) }, { additionalProperties: false });

export const SetModelPriceSchema = Type.Object(
  {
    /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
    workspace_id: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    type: Type.Optional(Type.Literal('static')),
    currency: Type.Optional(Type.Literal('USD')),
    pay_as_you_go: Type.Object(
      {
        request_token: TokenPrice,
        response_token: TokenPrice,
        cache_read_input_token: Type.Optional(TokenPrice),
        cache_write_input_token: Type.Optional(TokenPrice),
        reasoning_token: Type.Optional(TokenPrice),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SetModelPriceBody = Static<typeof SetModelPriceSchema>;

export const validateSetModelPrice: BodyValidator<SetModelPriceInput> = makeValidator(SetModelPriceSchema, () => {});
