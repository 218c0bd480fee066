/**
 * The integrated model catalog: a shipped list of well-known models across the providers the gateway supports,
 * served by `GET /v1/models` when the request names no provider.
 *
 * models.json is validated once, at module load; a bad file fails the import with a message naming the entry.
 * Prices are public list prices in USD, approximate; null means "not listed per token" or "not known".
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { invalidParam } from '../core/errors.ts';
import { providerNames } from '../providers/registry.ts';
import rawModels from './models.json' with { type: 'json' };

/**
 * The providers an entry may name: the registry's, so a new provider is one folder and one registry line, and
 * the catalog never lists a provider the gateway cannot call.
 */
const REGISTERED_PROVIDERS: readonly string[] = Object.freeze(providerNames());

export const AI_SERVICES = ['chat', 'embedding', 'rerank', 'completion', 'image', 'audio'] as const;
export type AiService = (typeof AI_SERVICES)[number];

export const SORT_FIELDS = ['name', 'provider', 'ai_service'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Fixed `created` timestamp for catalog entries: they are not upstream objects, so there is no real one. */
export const CATALOG_CREATED = 0;

export const MAX_LIMIT = 1000;

const Price = Type.Union([Type.Number({ minimum: 0 }), Type.Null()]);
const TokenCount = Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]);

export const CatalogPricingSchema = Type.Object(
  {
    currency: Type.Literal('USD'),
    input_per_million_tokens: Price,
    output_per_million_tokens: Price,
    cache_read_per_million_tokens: Price,
    cache_write_per_million_tokens: Price,
    /** Rerank models billed per search (1 query over up to N documents) rather than per token. */
    per_thousand_searches: Type.Optional(Price),
  },
  { additionalProperties: false },
);

export const CatalogModelSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    /** checked against the provider registry by validateCatalog */
    provider: Type.String({ minLength: 1 }),
    ai_service: Type.Union(AI_SERVICES.map((s) => Type.Literal(s))),
    owned_by: Type.String({ minLength: 1 }),
    context_window: TokenCount,
    max_output_tokens: TokenCount,
    pricing: CatalogPricingSchema,
  },
  { additionalProperties: false },
);

export const CatalogSchema = Type.Array(CatalogModelSchema);

export type CatalogPricing = Static<typeof CatalogPricingSchema>;

export interface CatalogModel {
  id: string;
  provider: string;
  ai_service: AiService;
  owned_by: string;
  context_window: number | null;
  max_output_tokens: number | null;
  pricing: CatalogPricing;
}

export interface CatalogModelView {
  /** The model id as the provider names it (not prefixed with the provider). */
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  provider: string;
  ai_service: AiService;
  slug: string;
  /** `${provider}/${id}`: unique across the whole catalog. */
  canonical_slug: string;
  context_window: number | null;
  max_output_tokens: number | null;
  pricing: CatalogPricing;
}

export interface ModelsQuery {
  provider?: string;
  ai_service?: string;
  sort?: SortField;
  order?: SortOrder;
  limit?: number;
  offset?: number;
}

export interface ParsedModelsQuery extends ModelsQuery {
  sort: SortField;
  order: SortOrder;
}

export interface ModelsList {
  object: 'list';
  total: number;
  data: CatalogModelView[];
}

/**
 * Check a parsed catalog file: the schema, registered providers, finite non-negative prices, and unique ids per
 * provider. Returns a deep-frozen copy; throws an Error naming the first problem.
 */
export function validateCatalog(data: unknown, knownProviders: readonly string[] = REGISTERED_PROVIDERS): readonly CatalogModel[] {
  if (!Value.Check(CatalogSchema, data)) {
    const first = Value.Errors(CatalogSchema, data).First();
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown error';
    throw new Error(`Invalid model catalog (${where})`);
  }
  const seen = new Set<string>();
  const models: CatalogModel[] = [];
  for (const [index, entry] of data.entries()) {
    if (!knownProviders.includes(entry.provider)) {
      throw new Error(`Invalid model catalog (/${index}/provider: unknown provider "${entry.provider}", not in the provider registry)`);
    }
    const key = `${entry.provider}/${entry.id}`;
    if (seen.has(key)) throw new Error(`Invalid model catalog (/${index}: duplicate model ${key})`);
    seen.add(key);
    for (const [field, value] of Object.entries(entry.pricing)) {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new Error(`Invalid model catalog (/${index}/pricing/${field}: must be finite)`);
      }
    }
    const pricing: CatalogPricing = Object.freeze({ ...entry.pricing });
    models.push(Object.freeze({ ...entry, pricing }));
  }
  return Object.freeze(models);
}

/** The shipped catalog, validated once at module load. */
export const integratedModels: readonly CatalogModel[] = validateCatalog(rawModels);

function single(query: Record<string, unknown>, param: string): string | undefined {
  const value = query[param];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw invalidParam(param, `Query parameter '${param}' must be given at most once.`);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw invalidParam(param, `Query parameter '${param}' must be a string.`);
  return value;
}

function nonEmpty(query: Record<string, unknown>, param: string): string | undefined {
  const value = single(query, param);
  if (value === undefined) return undefined;
  if (value.trim() === '') throw invalidParam(param, `Query parameter '${param}' must not be empty.`);
  return value;
}

function integer(query: Record<string, unknown>, param: string, min: number, max: number): number | undefined {
  const value = single(query, param);
  if (value === undefined) return undefined;
  const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
    throw invalidParam(param, `Query parameter '${param}' must be an integer ${range}.`);
  }
  return n;
}

function oneOf<T extends string>(query: Record<string, unknown>, param: string, allowed: readonly T[]): T | undefined {
  const value = single(query, param);
  if (value === undefined) return undefined;
  const match = allowed.find((a) => a === value);
  if (match === undefined) {
    throw invalidParam(param, `Query parameter '${param}' must be one of: ${allowed.join(', ')}.`);
  }
  return match;
}

/**
 * Validate the `GET /v1/models` query strictly. Unknown parameters are ignored; every known one is checked
 * and a bad one throws a 400 GatewayError whose `param` names it.
 */
export function parseModelsQuery(query: Record<string, unknown>): ParsedModelsQuery {
  const parsed: ParsedModelsQuery = {
    sort: oneOf(query, 'sort', SORT_FIELDS) ?? 'name',
    order: oneOf(query, 'order', SORT_ORDERS) ?? 'asc',
  };
  const provider = nonEmpty(query, 'provider');
  if (provider !== undefined) parsed.provider = provider;
  const aiService = nonEmpty(query, 'ai_service');
  if (aiService !== undefined) parsed.ai_service = aiService;
  const limit = integer(query, 'limit', 1, MAX_LIMIT);
  if (limit !== undefined) parsed.limit = limit;
  const offset = integer(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  if (offset !== undefined) parsed.offset = offset;
  return parsed;
}

/** Case-insensitive first, then by code unit, so the order is total and locale-independent. */
function compareText(a: string, b: string): number {
  const al = a.toLowerCase();
  const bl = b.toLowerCase();
  if (al !== bl) return al < bl ? -1 : 1;
  if (a !== b) return a < b ? -1 : 1;
  return 0;
}

function compareBy(sort: SortField): (a: CatalogModel, b: CatalogModel) => number {
  const byName = (a: CatalogModel, b: CatalogModel): number => compareText(a.id, b.id);
  const byProvider = (a: CatalogModel, b: CatalogModel): number => compareText(a.provider, b.provider);
  const byService = (a: CatalogModel, b: CatalogModel): number => compareText(a.ai_service, b.ai_service);
  const chain =
    sort === 'name'
      ? [byName, byProvider]
      : sort === 'provider'
        ? [byProvider, byName]
        : [byService, byProvider, byName];
  return (a, b) => {
    for (const cmp of chain) {
      const r = cmp(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

function toView(model: CatalogModel): CatalogModelView {
  return {
    id: model.id,
    object: 'model',
    created: CATALOG_CREATED,
    owned_by: model.owned_by,
    provider: model.provider,
    ai_service: model.ai_service,
    slug: model.id,
    canonical_slug: `${model.provider}/${model.id}`,
    context_window: model.context_window,
    max_output_tokens: model.max_output_tokens,
    pricing: { ...model.pricing },
  };
}

/**
 * Filter (exact match on provider and ai_service), sort (default name asc; ties broken by the other fields so
 * the order is deterministic; desc reverses the whole order), then page. `total` counts after filtering and
 * before paging. No limit means everything from `offset` on.
 */
export function listCatalogModels(models: readonly CatalogModel[], query: ModelsQuery): ModelsList {
  const filtered = models.filter(
    (m) =>
      (query.provider === undefined || m.provider === query.provider) &&
      (query.ai_service === undefined || m.ai_service === query.ai_service),
  );
  const cmp = compareBy(query.sort ?? 'name');
  const sign = query.order === 'desc' ? -1 : 1;
  filtered.sort((a, b) => sign * cmp(a, b));
  const offset = Math.max(0, Math.trunc(query.offset ?? 0));
  const end = query.limit === undefined ? undefined : offset + Math.max(0, Math.trunc(query.limit));
  return { object: 'list', total: filtered.length, data: filtered.slice(offset, end).map(toView) };
}
