/**
 * The cost of one answer: its usage x its model's price, in picodollars (money.ts), exact.
 *
 * Usage is the canonical (OpenAI) shape: prompt tokens include the cached and the cache-written ones (OpenAI's
 * prompt_tokens_details.cached_tokens; the Anthropic and Bedrock adapters add cache reads and writes into
 * prompt_tokens), and completion tokens include the reasoning ones (completion_tokens_details.reasoning_tokens).
 * So each token is charged once, at the price of its kind:
 *
 *   (prompt - cached - cache written) x input + cached x cache read + cache written x cache write
 *   + (completion - reasoning) x output + reasoning x reasoning
 *
 * Unknown is null, never 0: no usage, or tokens of a kind whose price is not known (an embedding model has no
 * output price; it needs none while its answers have no completion tokens).
 */
import { chargedPrices, type ModelPrice } from './model-price.ts';

/** The token counts a cost needs; undefined where the answer did not say. */
export interface BillableUsage {
  prompt: number | undefined;
  completion: number | undefined;
  total: number | undefined;
  /** cached input tokens read (part of prompt) */
  cached?: number | undefined;
  /** input tokens written to the prompt cache (part of prompt) */
  cacheWrite?: number | undefined;
  /** reasoning tokens (part of completion) */
  reasoning?: number | undefined;
}

interface Counts {
  prompt: number;
  completion: number;
}

/**
 * Prompt and completion, each read from the other and the total where missing. An answer that reports only a total
 * (a rerank, some embeddings) reads it as input: those routes produce no output tokens.
 */
function countsOf(usage: BillableUsage): Counts | undefined {
  const { prompt, completion, total } = usage;
  if (prompt !== undefined) {
    const rest = completion ?? (total !== undefined && total >= prompt ? total - prompt : 0);
    return { prompt, completion: rest };
  }
  if (completion !== undefined) {
    return total !== undefined && total >= completion ? { prompt: total - completion, completion } : undefined;
  }
  return total !== undefined ? { prompt: total, completion: 0 } : undefined;
}

/** tokens x price; null when there are tokens and no price */
function charge(tokens: number, price: bigint | null): bigint | null {
  if (tokens === 0) return 0n;
  return price === null ? null : BigInt(tokens) * price;
}

export function costOfUsage(usage: BillableUsage | undefined, price: ModelPrice): bigint | null {
  if (!usage) return null;
  const counts = countsOf(usage);
  if (!counts) return null;
  const prices = chargedPrices(price);
  const cached = Math.min(usage.cached ?? 0, counts.prompt);
  const written = Math.min(usage.cacheWrite ?? 0, counts.prompt - cached);
  const reasoning = Math.min(usage.reasoning ?? 0, counts.completion);
  const parts = [
    charge(counts.prompt - cached - written, prices.input),
    charge(cached, prices.cacheRead),
    charge(written, prices.cacheWrite),
    charge(counts.completion - reasoning, prices.output),
    charge(reasoning, prices.reasoning),
  ];
  let total = 0n;
  for (const part of parts) {
    if (part === null) return null;
    total += part;
  }
  return total;
}
