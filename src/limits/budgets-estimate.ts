/**
 * What a request is expected to use, reserved before it is sent (budgets.ts), and what it really used, settled after.
 *
 * Tokens: the prompt is estimated from the size of the body as sent, one token per 4 bytes (English text runs about
 * 4 characters a token, and the JSON around the messages only adds bytes), and the completion is the request's own
 * cap: `max_completion_tokens`, `max_tokens` or `max_output_tokens`, times `n`. A generating request that sets no
 * cap reserves DEFAULT_COMPLETION_TOKENS. Embeddings and rerank generate nothing; reads (models, a stored response)
 * reserve nothing, but an exhausted budget still refuses them.
 *
 * Cost: those tokens at the model's price (input for the prompt, output for the completion), in nano-dollars. With
 * no known price the cost is unknown: a cost budget cannot count the request (counted in a metric).
 */
import type { InferenceCall } from '../core/inference-call.ts';
import type { TokenUsage } from '../logging/usage.ts';
import { costOfUsage } from '../pricing/cost.ts';
import { chargedPrices, type ModelPrice } from '../pricing/model-price.ts';
import type { Amounts } from './budgets.ts';

/** The completion reserved for a generating request that sets no cap (docs/decisions.md). */
export const DEFAULT_COMPLETION_TOKENS = 1024;

/** bytes per prompt token in the estimate */
const BYTES_PER_TOKEN = 4;

const PICO_PER_NANO = 1000n;

const GENERATING = new Set(['chat', 'completions', 'responses.create', 'messages']);
const INPUT_ONLY = new Set(['embeddings', 'rerank']);

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function fieldsOf(body: unknown): Record<string, unknown> | undefined {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** A pass-through body that asks for a generation (a chat, a completion, a response): it has a prompt of some kind. */
function generates(fields: Record<string, unknown>): boolean {
  return 'messages' in fields || 'prompt' in fields || 'input' in fields || 'contents' in fields;
}

export interface TokenEstimate {
  prompt: number;
  completion: number;
}

export function estimateTokens(call: Pick<InferenceCall, 'route' | 'body' | 'rawBody'>): TokenEstimate {
  const fields = fieldsOf(call.body);
  const bytes = call.rawBody?.length ?? 0;
  const prompt = Math.ceil(bytes / BYTES_PER_TOKEN);
  if (INPUT_ONLY.has(call.route)) return { prompt, completion: 0 };
  const generating = GENERATING.has(call.route) || (call.route === 'passthrough' && fields !== undefined && generates(fields));
  if (!generating || !fields) return { prompt: call.route === 'passthrough' ? prompt : 0, completion: 0 };
  const cap = positiveInteger(fields.max_completion_tokens) ?? positiveInteger(fields.max_tokens) ?? positiveInteger(fields.max_output_tokens);
  const choices = positiveInteger(fields.n) ?? 1;
  return { prompt, completion: (cap ?? DEFAULT_COMPLETION_TOKENS) * choices };
}

/** Picodollars (the price tables') to nano-dollars (the budgets'), rounded up: a cost is never under-counted. */
function toNano(pico: bigint): number {
  return Number((pico + PICO_PER_NANO - 1n) / PICO_PER_NANO);
}

export function estimateAmounts(estimate: TokenEstimate, price: ModelPrice | null): Amounts {
  const tokens = estimate.prompt + estimate.completion;
  if (!price) return { tokens, cost: undefined };
  const prices = chargedPrices(price);
  const output = prices.output ?? prices.reasoning;
  if (prices.input === null || (estimate.completion > 0 && output === null)) return { tokens, cost: undefined };
  const pico = BigInt(estimate.prompt) * prices.input + (estimate.completion > 0 ? BigInt(estimate.completion) * output! : 0n);
  return { tokens, cost: toNano(pico) };
}

/** What an answer's usage comes to; undefined when the answer reported none. */
export function usedAmounts(usage: TokenUsage | undefined, price: ModelPrice | null): Amounts | undefined {
  if (!usage) return undefined;
  const tokens = usage.total ?? (usage.prompt ?? 0) + (usage.completion ?? 0);
  const pico = price ? costOfUsage(usage, price) : null;
  return { tokens, cost: pico === null ? undefined : toNano(pico) };
}
