/**
 * The shipped pricing catalog (catalog.json): list prices of the common models of every provider the gateway
 * supports, with the day they were compiled and where from. It is the one source of the prices the gateway charges
 * and shows; the integrated model catalog's `pricing` (src/catalog/models.json) is held to it by
 * test/pricing/catalog.test.ts.
 *
 * The file is validated once, at module load, like src/catalog/catalog.ts: a bad entry fails the import with a
 * message naming it. Prices are decimal text (never a float) read into picodollars per token (money.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { providerNames } from '../providers/registry.ts';
import { USD_PER_MILLION_SCALE, USD_PER_THOUSAND_SCALE, parseScaled } from './money.ts';
import type { ModelPrice } from './model-price.ts';
import rawCatalog from './catalog.json' with { type: 'json' };

/** "any model of this provider": self-hosted runtimes charge nothing per token, whatever the model */
export const ANY_MODEL = '*';

/** USD per million tokens: at most 6 decimals, so a whole number of picodollars per token */
const PerMillion = Type.String({ pattern: '^(0|[1-9][0-9]{0,5})(\\.[0-9]{1,6})?$' });
/** USD per thousand searches: at most 9 decimals, so a whole number of picodollars per search */
const PerThousand = Type.String({ pattern: '^(0|[1-9][0-9]{0,5})(\\.[0-9]{1,9})?$' });
const ModelName = Type.String({ minLength: 1, maxLength: 255 });

const EntrySchema = Type.Object(
  {
    model: ModelName,
    input: Type.Optional(PerMillion),
    output: Type.Optional(PerMillion),
    cache_read: Type.Optional(PerMillion),
    cache_write: Type.Optional(PerMillion),
    reasoning: Type.Optional(PerMillion),
    per_thousand_searches: Type.Optional(PerThousand),
    /** other names the provider answers to for the same model at the same price (dated snapshots, -latest) */
    aliases: Type.Optional(Type.Array(ModelName, { minItems: 1 })),
  },
  { additionalProperties: false },
);

const ProviderSchema = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    source: Type.String({ minLength: 1 }),
    read_on: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
    /** routing prefixes stripped before a second lookup (Bedrock's `us.` cross-region inference profiles) */
    model_prefixes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    models: Type.Array(EntrySchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export const PricingCatalogSchema = Type.Object(
  { description: Type.String(), currency: Type.Literal('USD'), providers: Type.Array(ProviderSchema, { minItems: 1 }) },
  { additionalProperties: false },
);

type Entry = Static<typeof EntrySchema>;

export interface CatalogPrice {
  provider: string;
  /** the entry's own model name (an alias resolves to it) */
  model: string;
  price: ModelPrice;
  readOn: string;
  source: string;
}

export interface ProviderPrices {
  provider: string;
  source: string;
  readOn: string;
  prefixes: readonly string[];
  /** by model name and by alias */
  models: ReadonlyMap<string, CatalogPrice>;
  anyModel: CatalogPrice | undefined;
}

export type PricingCatalog = ReadonlyMap<string, ProviderPrices>;

const PRICE_FIELDS = ['input', 'output', 'cache_read', 'cache_write', 'reasoning', 'per_thousand_searches'] as const;

function invalid(where: string, problem: string): Error {
  return new Error(`Invalid pricing catalog (${where}: ${problem})`);
}

function priceOf(entry: Entry): ModelPrice {
  // the schema's patterns guarantee exact parses
  const perToken = (value: string | undefined) => (value === undefined ? null : parseScaled(value, USD_PER_MILLION_SCALE)!);
  return {
    input: perToken(entry.input),
    output: perToken(entry.output),
    cacheRead: perToken(entry.cache_read),
    cacheWrite: perToken(entry.cache_write),
    reasoning: perToken(entry.reasoning),
    search: entry.per_thousand_searches === undefined ? null : parseScaled(entry.per_thousand_searches, USD_PER_THOUSAND_SCALE)!,
  };
}

function isRealDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/**
 * Check a parsed catalog file: the schema, registered providers (each once), real dates, at least one price per
 * entry, and model names and aliases unique per provider. Throws an Error naming the first problem.
 */
export function validatePricingCatalog(data: unknown, knownProviders: readonly string[] = providerNames()): PricingCatalog {
  if (!Value.Check(PricingCatalogSchema, data)) {
    const first = Value.Errors(PricingCatalogSchema, data).First();
    throw invalid(first?.path || '/', first?.message ?? 'unknown error');
  }
  const catalog = new Map<string, ProviderPrices>();
  for (const [index, section] of data.providers.entries()) {
    const where = `/providers/${index}`;
    if (!knownProviders.includes(section.provider)) throw invalid(`${where}/provider`, `unknown provider "${section.provider}", not in the provider registry`);
    if (catalog.has(section.provider)) throw invalid(`${where}/provider`, `provider "${section.provider}" is listed twice`);
    if (!isRealDate(section.read_on)) throw invalid(`${where}/read_on`, `"${section.read_on}" is not a date`);
    const models = new Map<string, CatalogPrice>();
    let anyModel: CatalogPrice | undefined;
    for (const [at, entry] of section.models.entries()) {
      const entryWhere = `${where}/models/${at}`;
      if (!PRICE_FIELDS.some((field) => entry[field] !== undefined)) throw invalid(entryWhere, `model "${entry.model}" lists no price`);
      const listed: CatalogPrice = Object.freeze({ provider: section.provider, model: entry.model, price: Object.freeze(priceOf(entry)), readOn: section.read_on, source: section.source });
      if (entry.model === ANY_MODEL) {
        if (anyModel) throw invalid(entryWhere, `"${ANY_MODEL}" is listed twice`);
        anyModel = listed;
        continue;
      }
      for (const name of [entry.model, ...(entry.aliases ?? [])]) {
        if (models.has(name)) throw invalid(entryWhere, `duplicate model ${section.provider}/${name}`);
        models.set(name, listed);
      }
    }
    catalog.set(section.provider, Object.freeze({ provider: section.provider, source: section.source, readOn: section.read_on, prefixes: section.model_prefixes ?? [], models, anyModel }));
  }
  return catalog;
}

/** The shipped catalog, validated once at module load. */
export const shippedPricing: PricingCatalog = validatePricingCatalog(rawCatalog);

/** The listed price of a model: its name or alias, then without a routing prefix, then the provider's `*`. */
export function catalogPrice(catalog: PricingCatalog, provider: string, model: string): CatalogPrice | undefined {
  const prices = catalog.get(provider);
  if (!prices) return undefined;
  const direct = prices.models.get(model);
  if (direct) return direct;
  for (const prefix of prices.prefixes) {
    if (!model.startsWith(prefix)) continue;
    const stripped = prices.models.get(model.slice(prefix.length));
    if (stripped) return stripped;
  }
  return prices.anyModel;
}
