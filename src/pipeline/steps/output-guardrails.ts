/**
 * Output guardrails. A JSON answer is judged by the executor before it is chosen, on the canonical shape the
 * client would get, so a failing answer can be retried or replaced (its verdict is a status: 446 denied, 246
 * failed). A stream is judged on its assembled text after its last chunk and before `data: [DONE]`: by then it
 * has reached the client and can no longer be retried, so a deny ends it with a 446 error event.
 */
import type { GatewayError } from '../../core/errors.ts';
import { guardrailDenied, outputText, runHooks, type GuardrailHook, type HooksOutcome } from '../../guardrails/hooks.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { InferenceCall } from '../../providers/contract.ts';
import { bodyOf, statusOf, type GuardrailStatus } from './input-guardrails.ts';

export interface OutputVerdict {
  outcome: HooksOutcome;
  status: GuardrailStatus;
}

export interface OutputContext {
  hooks: readonly GuardrailHook[];
  call: InferenceCall;
  metadata: Record<string, unknown>;
  signal: AbortSignal;
  checks: CheckRegistry;
}

export async function judgeOutput(answer: unknown, context: OutputContext): Promise<OutputVerdict> {
  const body = bodyOf(context.call);
  const outcome = await runHooks(
    context.hooks,
    { phase: 'output', requestType: context.call.route, model: typeof body.model === 'string' ? body.model : undefined, text: outputText(answer), request: body, response: answer, metadata: context.metadata },
    context.checks,
    context.signal,
  );
  return { outcome, status: statusOf(outcome) };
}

/** The check run at the end of a stream; an error it returns replaces `data: [DONE]`. */
export async function judgeStreamEnd(text: string, context: OutputContext): Promise<{ verdict: OutputVerdict; stop: GatewayError | undefined }> {
  const verdict = await judgeOutput({ choices: [{ message: { content: text } }] }, context);
  return { verdict, stop: verdict.outcome.denied ? guardrailDenied('output', verdict.outcome.results) : undefined };
}
