/**
 * The budgets step (usage limits). Right before an attempt is sent upstream, an estimate of what it will use
 * (src/limits/budgets-estimate.ts) is reserved in every budget that applies to it: the organisation's usage limits
 * policies that match it, and the inline `usage_limits` of its API key, its workspace and the saved provider it goes
 * through. A refusal is a 429 naming the budget (a fallback target may still serve the request). After the attempt
 * the reservation is settled: a JSON answer at once with its usage, a stream or a relayed answer when it has ended
 * (the usage its writer noted), an error released. A cache hit is never sent upstream: it reserves nothing.
 *
 * What the request pays for besides the chosen answer is charged to the same budgets, in tokens and in money: the
 * answers a retry dropped (at the attempt's price), and the semantic cache's embedding call (at the embedding
 * model's own price; on a hit too). The embedding is not charged to the saved provider's budget: it was not made
 * through that provider. With no budget that applies nothing is charged or allocated.
 */
import type { GatewayHeaders, Principal } from '../../core/context.ts';
import type { SavedProviderRef } from '../../domain/providers/saved-providers.ts';
import type { ExhaustionCheck } from '../../domain/providers/status.ts';
import type { PriceBook } from '../../domain/model-pricing/price-book.ts';
import { estimateAmounts, estimateTokens, usedAmounts } from '../../limits/budgets-estimate.ts';
import { inlineBudget, inlineLimit, policyBudgets, type BudgetLimit } from '../../limits/budgets-limits.ts';
import type { Budgets } from '../../limits/budgets-service.ts';
import type { Amounts, Reservation } from '../../limits/budgets.ts';
import { LimitError } from '../../limits/limit-error.ts';
import type { InferenceCall } from '../../core/inference-call.ts';
import type { RequestRecord } from '../../logging/request-record.ts';
import type { TokenUsage } from '../../logging/usage.ts';
import { catalogPrice, shippedPricing } from '../../pricing/catalog.ts';
import type { ModelPrice } from '../../pricing/model-price.ts';
import type { Answer } from '../read-answer.ts';
import type { EmbeddingSpend } from './semantic-embedding.ts';
import type { AttemptResult } from './upstream-call.ts';
import { answerUsage } from './usage.ts';

export interface BudgetDeps {
  budgets: Budgets;
  /** custom and integration prices; the shipped catalog alone when absent */
  prices?: PriceBook;
}

export interface BudgetAttempt {
  call: InferenceCall;
  /** the provider's name, as the registry knows it */
  provider: string;
  providerSlug: string | undefined;
  savedProvider: SavedProviderRef | undefined;
}

export interface AttemptBudget {
  /** the refusal of a budget the attempt does not fit in */
  refused: LimitError | undefined;
  /** Settles the reservation from the attempt's outcome; a throw or an attempt without an answer releases it. */
  track(tried: Promise<AttemptResult>): Promise<AttemptResult>;
  /**
   * For a long-lived exchange (a realtime session) instead of `track`: settles what one of its responses used and
   * reserves the estimate again for the next; the refusal of a budget it no longer fits in, so the exchange can stop.
   */
  renew(used: TokenUsage): Promise<LimitError | undefined>;
  /** The exchange has ended: what is still reserved for a response that never came is given back. */
  release(): void;
}

export interface RequestBudgets {
  reserve(attempt: BudgetAttempt): Promise<AttemptBudget>;
  /**
   * Charges the semantic cache's embedding call of an attempt to the attempt's budgets. Resolves once the charge is
   * under way (the budgets' drain waits for its write), so the request does not wait for the counter store.
   */
  chargeEmbedding(attempt: BudgetAttempt, spend: EmbeddingSpend): Promise<void>;
}

const UNLIMITED: AttemptBudget = { refused: undefined, track: (tried) => tried, renew: async () => undefined, release: () => {} };
const NO_BUDGETS: RequestBudgets = { reserve: async () => UNLIMITED, chargeEmbedding: async () => {} };

function modelOf(body: unknown): string | undefined {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : undefined;
}

async function priceOf(provider: string, model: string | undefined, integrationId: string | undefined, principal: Principal, deps: BudgetDeps): Promise<ModelPrice | null> {
  if (model === undefined) return null;
  if (!deps.prices) return catalogPrice(shippedPricing, provider, model)?.price ?? null;
  try {
    const query = { provider, model, organisationId: principal.organisationId, workspaceId: principal.workspaceId, integrationId };
    return (await deps.prices.resolve(query))?.price ?? null;
  } catch {
    return null;
  }
}

/** What the answers a retry dropped used, together (a cost not known when one's is not); undefined: none reported usage. */
function droppedAmounts(dropped: readonly Answer[], price: ModelPrice | null): Amounts | undefined {
  let total: Amounts | undefined;
  for (const answer of dropped) {
    const used = usedAmounts(answerUsage(answer), price);
    if (!used) continue;
    total = total ? { tokens: total.tokens + used.tokens, cost: total.cost === undefined || used.cost === undefined ? undefined : total.cost + used.cost } : used;
  }
  return total;
}

/** Settles a reservation from an attempt's answer: its usage now, or once its body has been written out. */
function settleFrom(answer: Answer | undefined, reservation: Reservation, price: ModelPrice | null, record: RequestRecord | undefined): void {
  if (!answer || answer.status >= 300 || answer.kind === 'provider-error') return reservation.release();
  if (answer.kind === 'json') return reservation.settle(usedAmounts(answerUsage(answer), price));
  // a stream's usage (or a relayed answer's, when it says) is noted by its writer, which then ends the attempt
  const attempt = answer.attempt;
  const end = attempt.done;
  attempt.done = (completed) => {
    end(completed);
    reservation.settle(usedAmounts(record?.usage, price));
  };
}

export function requestBudgets(principal: Principal | undefined, headers: GatewayHeaders, record: RequestRecord | undefined, deps: BudgetDeps): RequestBudgets {
  if (!principal) return NO_BUDGETS;
  const caller: Principal = principal;
  const { budgets } = deps;
  let inline: Promise<BudgetLimit[]> | undefined;

  /** The key's and the workspace's budgets: the same for every attempt of the request. */
  async function ownBudgets(): Promise<BudgetLimit[]> {
    const where = { organisationId: caller.organisationId, workspaceId: caller.workspaceId };
    const limits: BudgetLimit[] = [];
    const key = caller.kind === 'api_key' ? await budgets.keyBudget(caller.keyId) : null;
    if (key) limits.push(inlineLimit({ kind: 'api_key', id: caller.keyId }, key, { ...where, name: caller.keyId }));
    const workspace = await budgets.workspaceBudget(caller.workspaceId);
    if (workspace) limits.push(inlineLimit({ kind: 'workspace', id: caller.workspaceId }, workspace, { ...where, name: caller.workspaceId }));
    return limits;
  }

  async function limitsFor(attempt: BudgetAttempt): Promise<BudgetLimit[]> {
    const saved = attempt.savedProvider;
    const facts = {
      organisationId: caller.organisationId,
      workspaceId: caller.workspaceId,
      apiKeyId: caller.kind === 'api_key' ? caller.keyId : undefined,
      provider: attempt.provider,
      providerSlug: saved?.slug ?? attempt.providerSlug,
      metadata: headers.metadata,
    };
    const limits = policyBudgets(await budgets.policies.of(caller.organisationId), facts);
    limits.push(...(await (inline ??= ownBudgets())));
    const provider = saved ? inlineBudget(saved.usageLimits) : null;
    if (provider) {
      const owner = { kind: 'provider' as const, id: saved!.id, resetAt: saved!.usageResetAt };
      limits.push(inlineLimit(owner, provider, { organisationId: saved!.organisationId, workspaceId: saved!.workspaceId, name: `@${saved!.slug}` }));
    }
    return limits;
  }

  const contextOf = () => ({ requestId: headers.trace.traceId, apiKeyId: caller.kind === 'api_key' ? caller.keyId : undefined });

  return {
    async chargeEmbedding(attempt, spend) {
      if (!spend.usage) return;
      const limits = (await limitsFor(attempt)).filter((limit) => limit.source !== 'provider');
      if (limits.length === 0) return;
      // priced as the embedding provider's own model, like the request log's cost (steps/cost.ts)
      const price = limits.some((limit) => limit.type === 'cost') ? await priceOf(spend.provider, spend.model, undefined, caller, deps) : null;
      const used = usedAmounts(spend.usage, price)!;
      if (used.cost === undefined && limits.some((limit) => limit.type === 'cost')) budgets.unpriced();
      void budgets.engine.charge(limits, used, contextOf());
    },

    async reserve(attempt) {
      const limits = await limitsFor(attempt);
      if (limits.length === 0) return UNLIMITED;
      const price = limits.some((limit) => limit.type === 'cost') ? await priceOf(attempt.provider, modelOf(attempt.call.body), attempt.savedProvider?.integrationId, caller, deps) : null;
      const estimate = estimateAmounts(estimateTokens(attempt.call), price);
      if (estimate.cost === undefined && limits.some((limit) => limit.type === 'cost')) budgets.unpriced();
      const context = contextOf();
      const reserved = await budgets.engine.reserve(limits, estimate, context);
      if (reserved instanceof LimitError) return { ...UNLIMITED, refused: reserved };
      let open: Reservation | undefined = reserved;
      return {
        refused: undefined,
        async renew(used) {
          const settling = open;
          open = undefined;
          if (settling) {
            settling.settle(usedAmounts(used, price));
            // the next reservation is judged against the usage just settled
            await settling.settled;
          }
          const next = await budgets.engine.reserve(limits, estimate, context);
          if (next instanceof LimitError) return next;
          open = next;
          return undefined;
        },
        release() {
          open?.release();
          open = undefined;
        },
        async track(tried) {
          let result: AttemptResult;
          try {
            result = await tried;
          } catch (error) {
            reserved.release();
            throw error;
          }
          settleFrom(result.answer, reserved, price, record);
          // the answers a retry dropped were paid for too: the chosen one is settled above, these are charged
          const dropped = result.dropped && result.dropped.length > 0 ? droppedAmounts(result.dropped, price) : undefined;
          if (dropped) void budgets.engine.charge(limits, dropped, context);
          return result;
        },
      };
    },
  };
}

/** A saved provider's status (src/domain/providers/status.ts): exhausted while its inline budget's window is used up. */
export function providerExhaustion(budgets: Budgets): ExhaustionCheck {
  return async (provider) => {
    const budget = inlineBudget(provider.usageLimits);
    if (!budget) return false;
    const owner = { kind: 'provider' as const, id: provider.id, resetAt: provider.usageResetAt };
    return budgets.engine.exhausted(inlineLimit(owner, budget, { organisationId: provider.organisationId, workspaceId: provider.workspaceId, name: `@${provider.slug}` }));
  };
}
