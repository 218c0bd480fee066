/**
 * One model's price, in picodollars (money.ts) per token, and its public shape: the reference's ModelPricingConfig
 * (api-surface §3.25), whose prices are USD cents per token (its example `request_token.price: 0.003` is GPT-4's
 * $0.03 per thousand tokens).
 *
 * A price that is not listed is null, never 0. What the gateway charges when one is missing: cached input and
 * cache writes at the input price (providers without a prompt-cache discount bill them as input), reasoning at
 * the output price (OpenAI, Anthropic and Google bill reasoning tokens as output tokens).
 */
import { CENTS_SCALE, centsPerToken, scaledNumber } from './money.ts';

export interface ModelPrice {
  input: bigint | null;
  output: bigint | null;
  cacheRead: bigint | null;
  cacheWrite: bigint | null;
  reasoning: bigint | null;
  /** per search unit (rerank models billed per search), shown but not charged: usage carries no search units */
  search: bigint | null;
}

/** The per-token prices a cost is computed with: the fallbacks above applied. */
export function chargedPrices(price: ModelPrice): Pick<ModelPrice, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning'> {
  return {
    input: price.input,
    output: price.output,
    cacheRead: price.cacheRead ?? price.input,
    cacheWrite: price.cacheWrite ?? price.input,
    reasoning: price.reasoning ?? price.output,
  };
}

/** `{price}` in USD cents per token */
export interface TokenPrice {
  price: number;
}

/** The reference's pay_as_you_go, with the gateway's `reasoning_token` beside its fields. */
export interface PayAsYouGo {
  request_token?: TokenPrice;
  response_token?: TokenPrice;
  cache_read_input_token?: TokenPrice;
  cache_write_input_token?: TokenPrice;
  reasoning_token?: TokenPrice;
  additional_units?: Record<string, TokenPrice>;
}

export interface ModelPricingConfig {
  pay_as_you_go: PayAsYouGo;
  currency: 'USD';
}

const FIELDS = [
  ['request_token', 'input'],
  ['response_token', 'output'],
  ['cache_read_input_token', 'cacheRead'],
  ['cache_write_input_token', 'cacheWrite'],
  ['reasoning_token', 'reasoning'],
] as const;

export type PriceField = (typeof FIELDS)[number][0];
export const PRICE_FIELDS: readonly PriceField[] = FIELDS.map(([field]) => field);

/** The public view: the prices charged (fallbacks applied), a price nobody knows left out. */
export function pricingConfigOf(price: ModelPrice): ModelPricingConfig {
  const charged = chargedPrices(price);
  const payAsYouGo: PayAsYouGo = {};
  for (const [field, key] of FIELDS) {
    const value = charged[key];
    if (value !== null) payAsYouGo[field] = { price: centsPerToken(value) };
  }
  if (price.search !== null) payAsYouGo.additional_units = { search: { price: centsPerToken(price.search) } };
  return { pay_as_you_go: payAsYouGo, currency: 'USD' };
}

/** A price in cents per token whose text cannot be held exactly in picodollars: the field's name. */
export class InexactPrice extends Error {
  constructor(readonly field: string) {
    super(`${field} must be a number of 0 or more with at most ${CENTS_SCALE} decimals (USD cents per token).`);
  }
}

function readPrice(value: unknown, field: string): bigint | null {
  if (value === undefined || value === null) return null;
  const price = typeof value === 'object' ? (value as { price?: unknown }).price : undefined;
  if (typeof price !== 'number') throw new InexactPrice(`${field}.price`);
  const scaled = scaledNumber(price, CENTS_SCALE);
  if (scaled === undefined) throw new InexactPrice(`${field}.price`);
  return scaled;
}

/**
 * A pay_as_you_go object (cents per token: a custom price, an integration model's pricing_config) -> a price.
 * Throws InexactPrice naming the field (`pay_as_you_go.request_token.price`) when a price cannot be exact.
 */
export function priceFromPayAsYouGo(payAsYouGo: PayAsYouGo, prefix = 'pay_as_you_go'): ModelPrice {
  const price: ModelPrice = { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null, search: null };
  for (const [field, key] of FIELDS) price[key] = readPrice(payAsYouGo[field], `${prefix}.${field}`);
  price.search = readPrice(payAsYouGo.additional_units?.search, `${prefix}.additional_units.search`);
  return price;
}

/** A stored pricing object read leniently (the hot path never throws on a stored row): undefined when unusable. */
export function storedPrice(pricing: unknown): ModelPrice | undefined {
  if (typeof pricing !== 'object' || pricing === null) return undefined;
  const payAsYouGo = (pricing as { pay_as_you_go?: unknown }).pay_as_you_go;
  if (typeof payAsYouGo !== 'object' || payAsYouGo === null || Array.isArray(payAsYouGo)) return undefined;
  try {
    return priceFromPayAsYouGo(payAsYouGo as PayAsYouGo);
  } catch {
    return undefined;
  }
}
