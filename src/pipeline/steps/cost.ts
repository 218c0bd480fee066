/**
 * The cost step: the price of what a request used, looked up once (custom price, integration model, catalog:
 * src/pricing/price-lookup.ts, held in process by the price book) and noted on the request's record. The row
 * multiplies it by the usage when the answer has ended (src/logging/request-record.ts recordCost), so a stream's
 * usage, noted at its end, is priced like a JSON answer's.
 *
 * Attempts that answered and were not chosen (a fallback from an answer its output guardrails failed) were paid
 * for too: their cost is computed here, from their own usage and price, and added to the request's. So are the
 * answers a retry dropped (a retried answer its guardrails failed) and the semantic cache's embedding call (on a
 * hit too: a semantic hit costs its embedding, and saves its answer's price). They all go into the row's `cost`,
 * the total the request made the gateway pay; `attempts` lists the tries. An embedding or dropped answer without
 * usage, or without a known price, makes the cost unknown, never 0.
 *
 * A price lookup that fails (the database unreachable on a cold cache) never fails the request: the cost is then
 * recorded as unknown.
 */
import type { Principal } from '../../core/context.ts';
import type { PriceBook } from '../../domain/model-pricing/price-book.ts';
import { noteEarlierAttemptCost, type RequestRecord } from '../../logging/request-record.ts';
import { catalogPrice, shippedPricing } from '../../pricing/catalog.ts';
import { costOfUsage } from '../../pricing/cost.ts';
import type { ModelPrice } from '../../pricing/model-price.ts';
import type { Outcome } from '../outcome.ts';
import type { Answer } from '../read-answer.ts';
import { answerUsage } from './usage.ts';
import type { EmbeddingSpend } from './semantic-embedding.ts';

export interface CostDeps {
  /** custom and integration prices; the shipped catalog alone when absent */
  prices?: PriceBook;
}

interface Priced {
  provider: string;
  model: string | undefined;
  principal: Principal | undefined;
  integrationId: string | undefined;
}

async function priceOf(what: Priced, deps: CostDeps): Promise<ModelPrice | null> {
  const { provider, model, principal } = what;
  if (model === undefined) return null;
  if (!deps.prices || !principal) return catalogPrice(shippedPricing, provider, model)?.price ?? null;
  try {
    const query = { provider, model, organisationId: principal.organisationId, workspaceId: principal.workspaceId, integrationId: what.integrationId };
    return (await deps.prices.resolve(query))?.price ?? null;
  } catch {
    return null;
  }
}

function modelOf(body: unknown): string | undefined {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : undefined;
}

/** After noteOutcome: the chosen answer's price (the model sent, else the one the answer names). */
export async function notePrice(record: RequestRecord | undefined, outcome: Outcome, principal: Principal | undefined, deps: CostDeps): Promise<void> {
  if (!record) return;
  record.servedFromCache = outcome.answer.kind === 'cached';
  const model = record.model ?? record.answerModel;
  record.price = await priceOf({ provider: outcome.adapter.name, model, principal, integrationId: record.integrationId }, deps);
}

/** An attempt that answered and is left for the next one: what its answer cost, when it reported usage. */
export async function noteLeftAttempt(
  record: RequestRecord | undefined,
  left: { provider: string; body: unknown; answer: Answer | undefined },
  principal: Principal | undefined,
  deps: CostDeps,
): Promise<void> {
  if (!record || !left.answer) return;
  const usage = answerUsage(left.answer);
  if (!usage) return;
  const price = await priceOf({ provider: left.provider, model: modelOf(left.body), principal, integrationId: record.integrationId }, deps);
  noteEarlierAttemptCost(record, price ? costOfUsage(usage, price) : null);
}

/** The semantic cache's embedding call: its cost joins the request's (unknown when it reported no usage). */
export async function noteEmbeddingCost(record: RequestRecord | undefined, spend: EmbeddingSpend, principal: Principal | undefined, deps: CostDeps): Promise<void> {
  if (!record) return;
  // priced as the embedding provider's own model: the request's saved provider (integration) is another's
  const price = spend.usage ? await priceOf({ provider: spend.provider, model: spend.model, principal, integrationId: undefined }, deps) : null;
  noteEarlierAttemptCost(record, spend.usage && price ? costOfUsage(spend.usage, price) : null);
}
