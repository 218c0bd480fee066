/**
 * The common query filters of the analytics routes (api-surface §3.20), parsed into the use cases' input. Lists
 * are comma-separated (at most 100 entries); numbers are checked for form and range; a bad value is a 400 naming it.
 */
import { invalidParam } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import type { AnalyticsInput } from '../../../domain/analytics/inputs.ts';
import type { Range } from '../../../storage/repositories/analytics.ts';
import { optionalString } from '../params.ts';

const MAX_ENTRIES = 100;

function time(query: unknown, name: string): Date | undefined {
  const value = optionalString(query, name, 64);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw invalidParam(name, `${name} must be an ISO-8601 date-time.`);
  return date;
}

function number(query: unknown, name: string, options: { min: number; max: number; integer: boolean }): number | undefined {
  const value = optionalString(query, name, 32);
  if (value === undefined) return undefined;
  const pattern = options.integer ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/;
  const parsed = Number(value);
  if (!pattern.test(value) || parsed < options.min || parsed > options.max) {
    throw invalidParam(name, `${name} must be ${options.integer ? 'an integer' : 'a number'} from ${options.min} to ${options.max}.`);
  }
  return parsed;
}

function range(query: unknown, prefix: string, options: { min: number; max: number; integer: boolean }): Range | undefined {
  const min = number(query, `${prefix}_min`, options);
  const max = number(query, `${prefix}_max`, options);
  if (min !== undefined && max !== undefined && max < min) throw invalidParam(`${prefix}_max`, `${prefix}_max must not be below ${prefix}_min.`);
  return min === undefined && max === undefined ? undefined : { min, max };
}

function list(query: unknown, name: string, check: (entry: string) => boolean, what: string): string[] | undefined {
  const value = optionalString(query, name, 16_384);
  if (value === undefined) return undefined;
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_ENTRIES) throw invalidParam(name, `${name} takes at most ${MAX_ENTRIES} entries.`);
  for (const entry of entries) {
    if (entry.length === 0 || entry.length > 255 || !check(entry)) throw invalidParam(name, `${name} must be a comma-separated list of ${what}.`);
  }
  return entries;
}

const anyText = () => true;
const TOKENS = { min: 0, max: 1e12, integer: true };

function metadata(query: unknown): Record<string, unknown> | undefined {
  const value = optionalString(query, 'metadata', 8192);
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidParam('metadata', 'metadata must be a JSON object of key/value pairs.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidParam('metadata', 'metadata must be a JSON object of key/value pairs.');
  const entries = Object.entries(parsed);
  if (entries.length > 50) throw invalidParam('metadata', 'metadata takes at most 50 keys.');
  for (const [key, entry] of entries) {
    if (!['string', 'number', 'boolean'].includes(typeof entry)) throw invalidParam(`metadata.${key}`, `metadata.${key} must be a string, number or boolean.`);
  }
  return Object.fromEntries(entries);
}

function providerModels(query: unknown) {
  const pairs = list(query, 'ai_org_model', (entry) => /^[^_]+(?:_[^_]+)*__.+$/.test(entry), '`provider__model` pairs');
  return pairs?.map((pair) => {
    const split = pair.indexOf('__');
    return { provider: pair.slice(0, split), model: pair.slice(split + 2) };
  });
}

export function analyticsInput(query: unknown): AnalyticsInput {
  const statusCodes = list(query, 'status_code', (entry) => /^[1-5]\d\d$/.test(entry), 'HTTP status codes');
  return {
    workspaceSlug: optionalString(query, 'workspace_slug', 64),
    from: time(query, 'time_of_generation_min'),
    to: time(query, 'time_of_generation_max'),
    filters: {
      statusCodes: statusCodes?.map(Number),
      apiKeyIds: list(query, 'api_key_ids', isUuid, 'API key ids (UUIDs)')?.map((id) => id.toLowerCase()),
      providerModels: providerModels(query),
      totalUnits: range(query, 'total_units', TOKENS),
      cost: range(query, 'cost', { min: 0, max: 1e12, integer: false }),
      promptTokens: range(query, 'prompt_token', TOKENS),
      completionTokens: range(query, 'completion_token', TOKENS),
      weightedFeedback: range(query, 'weighted_feedback', { min: -10, max: 10, integer: false }),
      virtualKeys: list(query, 'virtual_keys', anyText, 'virtual key slugs'),
      configs: list(query, 'configs', anyText, 'config slugs'),
      metadata: metadata(query),
      traceIds: list(query, 'trace_id', anyText, 'trace ids'),
      spanIds: list(query, 'span_id', anyText, 'span ids'),
      promptSlugs: list(query, 'prompt_slug', anyText, 'prompt slugs'),
    },
  };
}

/** The parameters analyticsInput reads, for the OpenAPI document. */
export const ANALYTICS_QUERY_PARAMETERS = [
  'workspace_slug', 'time_of_generation_min', 'time_of_generation_max', 'total_units_min', 'total_units_max', 'cost_min', 'cost_max',
  'prompt_token_min', 'prompt_token_max', 'completion_token_min', 'completion_token_max', 'status_code', 'weighted_feedback_min',
  'weighted_feedback_max', 'virtual_keys', 'configs', 'api_key_ids', 'metadata', 'ai_org_model', 'trace_id', 'span_id', 'prompt_slug',
] as const;
