/**
 * Request-body validation for the inference routes, run once before any provider adapter.
 *
 * Each schema is compiled once, on first use. Ajv is configured never to touch the data (no coercion,
 * no defaults, no property removal): the body object is returned as is, because the raw bytes are
 * forwarded upstream. Every violation throws `invalidParam(param, message)` (400) naming the field.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { invalidParam } from '../../core/errors.ts';
import { refuseRepeatedQuery } from '../input-rules.ts';
import { ChatCompletionRequestSchema } from '../../core/schemas/chat-completions.ts';
import { CompletionRequestSchema } from '../../core/schemas/completions.ts';
import { EmbeddingRequestSchema } from '../../core/schemas/embeddings.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest, RerankRequest } from '../../core/openai-types.ts';
import { formatFirstError } from '../../core/schemas/format-error.ts';
import {
  INPUT_ITEMS_DEFAULT_LIMIT,
  INPUT_ITEMS_MAX_LIMIT,
  INPUT_ITEMS_ORDERS,
  INPUT_ITEMS_PARAMETERS,
  type InputItemsQuery,
} from './input-items-query.ts';
import { RerankRequestSchema } from '../../core/schemas/rerank.ts';
import { compileOnFirstUse } from '../../core/schemas/compile-on-first-use.ts';

const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Set means present and not null: OpenAI treats an explicit null like an omitted field. */
const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * A TypeBox schema's validator (compiled once, on first use: core/schemas/compile-on-first-use.ts); it returns the
 * (unchanged) body or throws a 400 naming the field.
 */
export function makeValidator<S extends TSchema>(
  schema: S,
  crossFieldRules: (body: Static<S>) => void,
): (body: unknown) => Static<S> {
  const compiled = compileOnFirstUse<Static<S>>(ajv, schema);
  return (body: unknown): Static<S> => {
    if (!isObject(body)) throw invalidParam('body', 'The request body must be a JSON object.');
    const check = compiled();
    if (!check(body)) {
      const { param, message } = formatFirstError(check.errors ?? [], schema, body);
      throw invalidParam(param, message);
    }
    crossFieldRules(body);
    return body;
  };
}

// ---- cross-field rules (run after the schema check, so the types hold) ----

function streamOptionsRule(body: { stream?: boolean | null; stream_options?: object | null }): void {
  if (isSet(body.stream_options) && body.stream !== true) {
    throw invalidParam('stream_options', 'stream_options is only allowed when stream is true');
  }
}

function chatRules(body: Static<typeof ChatCompletionRequestSchema>): void {
  if (isSet(body.top_logprobs) && body.logprobs !== true) {
    throw invalidParam('top_logprobs', 'top_logprobs is only allowed when logprobs is true');
  }
  streamOptionsRule(body);
}

function completionRules(body: Static<typeof CompletionRequestSchema>): void {
  if (isSet(body.best_of) && body.stream === true) {
    throw invalidParam('best_of', 'best_of cannot be used with stream: true');
  }
  // The specification says "best_of must be greater than n". We read it literally: when both are set
  // (non-null), best_of must be STRICTLY greater than n, so best_of == n (e.g. 1 and 1) is rejected too.
  // When only one of them is set no comparison is made (no implicit default n = 1).
  if (isSet(body.best_of) && isSet(body.n) && (body.best_of ?? 0) <= (body.n ?? 0)) {
    throw invalidParam('best_of', `best_of must be greater than n (got best_of ${body.best_of}, n ${body.n})`);
  }
  streamOptionsRule(body);
}

const noRules = (): void => {};

// ---- public API ----

/**
 * The validated body as the canonical type the pipeline carries (InferenceCall's `body` for its route). The schema
 * checked every field the gateway reads; the canonical types only add detail the schema leaves open (message
 * parts, a document's extra fields), which the adapters check as they translate. Unknown fields pass untouched.
 */
function canonical<T>(validate: (body: unknown) => unknown): (body: unknown) => T {
  return validate as (body: unknown) => T;
}

export const validateChatCompletion = canonical<ChatRequest>(makeValidator(ChatCompletionRequestSchema, chatRules));
export const validateCompletion = canonical<CompletionRequest>(makeValidator(CompletionRequestSchema, completionRules));
export const validateEmbedding = canonical<EmbeddingRequest>(makeValidator(EmbeddingRequestSchema, noRules));
export const validateRerank = canonical<RerankRequest>(makeValidator(RerankRequestSchema, noRules));

/** Strict integer: a string of ASCII digits only (no sign, decimals, exponent, spaces), or an integer number. */
function parseStrictInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !/^[0-9]{1,15}$/.test(value)) return undefined;
  return Number(value);
}

function cursor(query: Record<string, unknown>, name: 'after' | 'before'): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw invalidParam(name, `${name} must be a non-empty string`);
  return value;
}

/** Parses GET /responses/:id/input_items query values (strings): limit 1..100 (default 20), order asc|desc. */
export function parseInputItemsQuery(query: Record<string, unknown>): InputItemsQuery {
  // the query is forwarded as written: `limit[]=1` would reach the provider unchecked
  refuseRepeatedQuery(query, INPUT_ITEMS_PARAMETERS);
  let limit = INPUT_ITEMS_DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    const parsed = parseStrictInteger(query.limit);
    if (parsed === undefined || parsed < 1 || parsed > INPUT_ITEMS_MAX_LIMIT) {
      throw invalidParam('limit', `limit must be an integer between 1 and ${INPUT_ITEMS_MAX_LIMIT}`);
    }
    limit = parsed;
  }
  let order: InputItemsQuery['order'] = 'asc';
  if (query.order !== undefined) {
    const found = INPUT_ITEMS_ORDERS.find((o) => o === query.order);
    if (found === undefined) throw invalidParam('order', "order must be one of 'asc' or 'desc'");
    order = found;
  }
  const result: InputItemsQuery = { limit, order };
  const after = cursor(query, 'after');
  const before = cursor(query, 'before');
  if (after !== undefined) result.after = after;
  if (before !== undefined) result.before = before;
  return result;
}
