/**
 * The limits of one realtime session as its usage arrives. Each `response.done`'s usage goes at once into the
 * `tokens` rate limits and settles the budgets' reservation (which is then made again for the next response);
 * when a limit or a budget is used up the session is stopped: the client gets a Realtime `error` event naming
 * the limit, then both sockets close with 1008 (policy violation). Usage events are taken one at a time, in order.
 */
import type { WebSocket } from 'ws';
import type { GatewayError } from '../../core/errors.ts';
import type { TokenUsage } from '../../logging/usage.ts';
import type { AttemptBudget } from '../../pipeline/steps/budgets.ts';
import type { RequestRateLimits } from '../../pipeline/steps/rate-limits.ts';

/** RFC 6455 7.4.1: an endpoint ends a connection that violates its policy with 1008 */
const POLICY_VIOLATION = 1008;

export interface SessionLimits {
  /** one response's usage; resolves with the refusal that stopped the session, if any */
  used(usage: TokenUsage): Promise<GatewayError | undefined>;
  /** the session has ended (or never opened): the open reservation is given back */
  end(): void;
}

export function sessionLimits(rateLimits: RequestRateLimits, budget: AttemptBudget): SessionLimits {
  let queue: Promise<GatewayError | undefined> = Promise.resolve(undefined);
  let ended = false;
  return {
    used(usage) {
      queue = queue.then(async (stopped) => {
        if (stopped || ended) return stopped;
        const tokens = usage.total ?? (usage.prompt ?? 0) + (usage.completion ?? 0);
        const [limited, exhausted] = await Promise.all([rateLimits.addTokens(tokens), budget.renew(usage)]);
        return exhausted ?? limited;
      });
      return queue;
    },
    end() {
      if (ended) return;
      ended = true;
      // after the last usage is settled, not before it
      void queue.then(() => budget.release());
    },
  };
}

/** Stops a session over a limit: the Realtime error event first, then both sockets closed. */
export function stopSession(client: WebSocket, provider: WebSocket, refusal: GatewayError): void {
  const { error } = refusal.toBody();
  if (client.readyState === client.OPEN) {
    // https://platform.openai.com/docs/api-reference/realtime-server-events/error
    client.send(JSON.stringify({ type: 'error', event_id: `event_gateway_${Date.now().toString(36)}`, error: { ...error, event_id: null } }));
  }
  // the close reason names the limit's code (usage_limit_exhausted, rate_limit_exceeded...); the event says the rest
  const reason = `limit reached: ${error.code ?? refusal.type}`.slice(0, 123);
  client.close(POLICY_VIOLATION, reason);
  provider.close(POLICY_VIOLATION, reason);
}
