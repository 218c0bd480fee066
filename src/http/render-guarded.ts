/**
 * Answers with guardrails: output guardrails run on the answer before the client gets it. A JSON answer is
 * checked whole (a deny answers 446 with the verdicts, nothing of the answer is sent); a stream is checked on
 * its assembled text after the last chunk and before `data: [DONE]` — chunks already sent cannot be recalled, so
 * a deny ends the stream with a 446 error event instead of [DONE]. The verdicts travel in `hook_results`
 * (the answer is then re-serialised) and in `x-gateway-guardrails: passed|failed`.
 */
import type { FastifyReply } from 'fastify';
import { badGateway } from '../core/errors.ts';
import { guardrailDenied, outputText, runHooks, type GuardrailHook, type HookResult } from '../guardrails/hooks.ts';
import type { CheckRegistry } from '../guardrails/registry.ts';
import type { InferenceCall, ProviderTarget, ResponseTransform, StreamDecoder, StreamEvent } from '../providers/contract.ts';
import { UNCHANGED } from '../providers/contract.ts';
import type { JudgedAnswer } from '../routing/guard.ts';
import { noteAnswer, noteOutputVerdicts, type RequestRecord } from '../logging/request-record.ts';

export interface OutputGuardrails {
  input: HookResult[];
  output: GuardrailHook[];
  /** the answer's text and verdicts when the executor already judged it (routing/guard.ts) */
  judged?: JudgedAnswer | undefined;
  registry: CheckRegistry | undefined;
  metadata: Record<string, unknown>;
  signal: AbortSignal;
}

export async function runOutputGuardrails(guardrails: OutputGuardrails, call: InferenceCall, answer: unknown) {
  if (guardrails.output.length === 0) return { results: [] as HookResult[], passed: true, denied: false };
  if (!guardrails.registry) throw new Error('output guardrails configured but no check registry was given');
  const body = (typeof call.body === 'object' && call.body !== null ? call.body : {}) as Record<string, unknown>;
  return runHooks(
    guardrails.output,
    {
      phase: 'output',
      requestType: call.route,
      model: typeof body.model === 'string' ? body.model : undefined,
      text: outputText(answer),
      request: body,
      response: answer,
      metadata: guardrails.metadata,
    },
    guardrails.registry,
    guardrails.signal,
  );
}

/**
 * What a guarded answer needs of the render options: declared here, not imported from render-upstream.ts, so the
 * dependency points one way (render-upstream -> render-guarded); render-upstream's RenderOptions satisfies it.
 */
export interface GuardedAnswerOptions {
  call: InferenceCall;
  target: ProviderTarget;
  /** x-gateway-* headers for the answer */
  gatewayHeaders: Record<string, string>;
  record?: RequestRecord | undefined;
}

export async function sendGuarded(
  reply: FastifyReply,
  json: unknown,
  transform: ResponseTransform | undefined,
  guardrails: OutputGuardrails,
  options: GuardedAnswerOptions,
): Promise<void> {
  let answer: unknown = json;
  if (transform) {
    try {
      const converted = transform(json, options.call, options.target);
      if (converted !== UNCHANGED) answer = converted;
    } catch (error) {
      throw badGateway(`Provider "${options.target.provider}" answered in an unexpected shape: ${(error as Error).message}`);
    }
  }
  const outcome = guardrails.judged?.outcome ?? (await runOutputGuardrails(guardrails, options.call, answer));
  noteAnswer(options.record, answer);
  noteOutputVerdicts(options.record, outcome.results);
  if (outcome.denied) {
    // the error renderer keeps these: a denied answer still says which target and how many retries
    reply.headers(options.gatewayHeaders);
    throw guardrailDenied('output', outcome.results);
  }
  const passed = guardrails.input.every((result) => result.verdict) && outcome.passed;
  const body = typeof answer === 'object' && answer !== null && !Array.isArray(answer)
    ? { ...(answer as Record<string, unknown>), hook_results: { before_request_hooks: guardrails.input, after_request_hooks: outcome.results } }
    : answer;
  reply.code(200).headers({ ...options.gatewayHeaders, 'x-gateway-guardrails': passed ? 'passed' : 'failed' }).send(body);
}

/** An OpenAI-format stream read as events: each chunk passed on as it is, the provider's [DONE] held back. */
export function identityDecoder(): StreamDecoder {
  return {
    push(event: StreamEvent) {
      if (event.data === '[DONE]') return [];
      try {
        return [JSON.parse(event.data)];
      } catch {
        throw badGateway('The provider sent a stream event that is not JSON.', 'stream_interrupted');
      }
    },
    end: () => [],
  };
}

/** Wraps a decoder to assemble the first choice's text as the chunks go by. */
export function collectingDecoder(inner: StreamDecoder): { decoder: StreamDecoder; text: () => string; chunks: () => unknown[] } {
  let text = '';
  const all: unknown[] = [];
  const collect = (chunks: unknown[]) => {
    for (const chunk of chunks) {
      all.push(chunk);
      const choices = (chunk as { choices?: Array<{ index?: number; delta?: { content?: unknown }; text?: unknown }> }).choices;
      const first = choices?.find((choice) => (choice.index ?? 0) === 0);
      const piece = first?.delta?.content ?? first?.text;
      if (typeof piece === 'string') text += piece;
    }
    return chunks;
  };
  return {
    decoder: { push: (event) => collect(inner.push(event)), end: () => collect(inner.end()) },
    text: () => text,
    chunks: () => all,
  };
}
