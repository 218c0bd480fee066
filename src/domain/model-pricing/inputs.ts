/**
 * What the model-pricing use cases take, with the admin API's field names (the transport's schemas are checked
 * against these types at compile time, in src/http/admin/model-pricing/schemas.ts). Prices are USD cents per token,
 * as in the reference's ModelPricingConfig (api-surface §3.25).
 */

export interface TokenPriceInput {
  price: number;
}

export interface PayAsYouGoInput {
  request_token: TokenPriceInput;
  response_token: TokenPriceInput;
  cache_read_input_token?: TokenPriceInput;
  cache_write_input_token?: TokenPriceInput;
  reasoning_token?: TokenPriceInput;
}

/** PUT /model-configs/pricing/{provider}/{model}: the price of one model, for one workspace or organisation-wide. */
export interface SetModelPriceInput {
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
  /** the integration models' pricing_config names its kind; only static prices exist */
  type?: 'static';
  currency?: 'USD';
  pay_as_you_go: PayAsYouGoInput;
}

/** Where a read or a delete looks: the `workspace_id` query parameter (id or slug). */
export interface PriceScopeInput {
  workspace?: string | undefined;
}

export interface ListModelPricesInput {
  workspace?: string | undefined;
  provider?: string | undefined;
  model?: string | undefined;
}
