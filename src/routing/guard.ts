/**
 * Guardrails around one attempt, as statuses the retry and fallback settings can name:
 * - 446 (GUARDRAIL_DENIED_STATUS): a failing hook that says `deny`;
 * - 246 (GUARDRAIL_FAILED_STATUS): a failing hook without `deny` (a success status: the answer is usable);
 * - 200: every hook passed.
 * A fallback moves on when its `on_status_codes` names the status (without a list: any non-2xx, so a 446 moves
 * on and a 246 does not); a target retries when its `retry.on_status_codes` names it. Input verdicts are
 * deterministic for one request, so an input failure is never retried, only handed to the fallback.
 *
 * Output guardrails of a non-streaming answer are judged here, before the answer is chosen, so that a failing
 * answer can be retried or replaced; the text read and the verdicts travel on to the renderer, which neither
 * reads nor checks twice. A stream is judged by the renderer after its last chunk: by then it has reached the
 * client and can no longer be retried.
 */
import { readAnswerText, type UpstreamAttempt } from '../core/call-upstream.ts';
import type { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders, Principal } from '../core/context.ts';
import { badGateway } from '../core/errors.ts';
import {
  GUARDRAIL_DENIED_STATUS,
  GUARDRAIL_FAILED_STATUS,
  inputText,
  outputText,
  resolveHooks,
  runHooks,
  withInputText,
  type GuardrailHook,
  type HookResult,
  type HooksOutcome,
  type SavedGuardrailLookup,
} from '../guardrails/hooks.ts';
import type { CheckRegistry } from '../guardrails/registry.ts';
import type { SavedGuardrails } from '../guardrails/saved.ts';
import { UNCHANGED, type InferenceCall, type ProviderAdapter, type ProviderTarget } from '../providers/contract.ts';
import type { Guardrail } from './target-settings.ts';
import type { WorkspaceRequestDefaults } from './workspace-defaults.ts';

export type GuardrailStatus = 200 | typeof GUARDRAIL_FAILED_STATUS | typeof GUARDRAIL_DENIED_STATUS;

export interface GuardDeps {
  checks?: CheckRegistry | undefined;
  savedGuardrails?: SavedGuardrails | undefined;
}

export interface GuardInputs {
  /** the hooks of the attempt (config) */
  input: readonly Guardrail[] | undefined;
  output: readonly Guardrail[] | undefined;
  /** the config path the hook lists hang under, for errors (`config.targets[1]`) */
  path: string;
  /** the workspace's default guardrails: they run first, on every request of the workspace */
  workspace: WorkspaceRequestDefaults;
  headers: GatewayHeaders;
  principal: Principal | undefined;
  clientGone: AbortLink;
}

export interface GuardedInput {
  /** the call to send: the body rewritten when a check redacted it */
  call: InferenceCall;
  input: HookResult[];
  /** the output hooks to run on the answer */
  output: GuardrailHook[];
  status: GuardrailStatus;
}

function statusOf(outcome: Pick<HooksOutcome, 'passed' | 'denied'>): GuardrailStatus {
  if (outcome.denied) return GUARDRAIL_DENIED_STATUS;
  return outcome.passed ? 200 : GUARDRAIL_FAILED_STATUS;
}

function bodyOf(call: InferenceCall): Record<string, unknown> {
  return (typeof call.body === 'object' && call.body !== null ? call.body : {}) as Record<string, unknown>;
}

function lookupFor(deps: GuardDeps, principal: Principal | undefined): SavedGuardrailLookup | undefined {
  const saved = deps.savedGuardrails;
  if (!saved || !principal) return undefined;
  return (id) => saved(principal.organisationId, principal.workspaceId, id);
}

function requireRegistry(deps: GuardDeps): CheckRegistry {
  if (!deps.checks) throw new Error('guardrails configured but no check registry was given');
  return deps.checks;
}

/** The workspace's hooks, then the config's; an unknown entry is a 400 naming where it was written. */
async function hooksOf(workspace: readonly string[], config: readonly Guardrail[] | undefined, path: string, lookup: SavedGuardrailLookup | undefined) {
  const own = await resolveHooks(config, path, lookup);
  if (workspace.length === 0) return own;
  const inherited = await resolveHooks(workspace, `workspace.defaults.${path.slice(path.lastIndexOf('.') + 1)}`, lookup);
  return [...inherited, ...own];
}

/** Resolves the attempt's hooks and runs the input ones. A redaction rewrites the body before it goes upstream. */
export async function guardInput(call: InferenceCall, inputs: GuardInputs, deps: GuardDeps): Promise<GuardedInput> {
  const lookup = lookupFor(deps, inputs.principal);
  const input = await hooksOf(inputs.workspace.inputGuardrails, inputs.input, `${inputs.path}.input_guardrails`, lookup);
  const output = await hooksOf(inputs.workspace.outputGuardrails, inputs.output, `${inputs.path}.output_guardrails`, lookup);
  if (input.length === 0) return { call, input: [], output, status: 200 };
  const body = bodyOf(call);
  const outcome = await runHooks(
    input,
    { phase: 'input', requestType: call.route, model: typeof body.model === 'string' ? body.model : undefined, text: inputText(body), request: body, response: undefined, metadata: inputs.headers.metadata },
    requireRegistry(deps),
    inputs.clientGone.signal,
  );
  const status = statusOf(outcome);
  if (outcome.redactedText === undefined || status === GUARDRAIL_DENIED_STATUS) return { call, input: outcome.results, output, status };
  const redacted = withInputText(body, outcome.redactedText);
  return { call: { ...call, body: redacted, rawBody: Buffer.from(JSON.stringify(redacted)) }, input: outcome.results, output, status };
}

/** A non-streaming answer of a built-in JSON route, read and judged by the output hooks. */
export interface JudgedAnswer {
  /** the answer's bytes as the provider sent them */
  text: string;
  outcome: HooksOutcome;
  status: GuardrailStatus;
}

/** Whether the executor judges this answer (see the module comment): output hooks, a 2xx JSON answer, no stream. */
export function judgesOutput(output: readonly GuardrailHook[], call: InferenceCall, answer: UpstreamAttempt): boolean {
  if (output.length === 0 || call.route === 'passthrough') return false;
  if ((bodyOf(call) as { stream?: unknown }).stream === true) return false;
  const status = answer.response.statusCode;
  const type = answer.response.headers['content-type'];
  return status >= 200 && status < 300 && !String(type ?? '').includes('text/event-stream');
}

/** Reads the answer whole and runs the output hooks on it, in the canonical (OpenAI) shape the client would get. */
export async function judgeAnswer(
  answer: UpstreamAttempt,
  hooks: readonly GuardrailHook[],
  context: { adapter: ProviderAdapter; target: ProviderTarget; call: InferenceCall; timeoutMs: number | undefined; metadata: Record<string, unknown>; signal: AbortSignal },
  deps: GuardDeps,
): Promise<JudgedAnswer> {
  const { adapter, target, call } = context;
  const text = await readAnswerText(answer, target, context.timeoutMs);
  let canonical: unknown;
  try {
    canonical = JSON.parse(text);
    const transform = adapter.responseTransform(call.route);
    const converted = transform ? transform(canonical, call, target) : UNCHANGED;
    if (converted !== UNCHANGED) canonical = converted;
  } catch (error) {
    throw badGateway(`Provider "${target.provider}" answered in an unexpected shape: ${(error as Error).message}`);
  }
  const body = bodyOf(call);
  const outcome = await runHooks(
    hooks,
    { phase: 'output', requestType: call.route, model: typeof body.model === 'string' ? body.model : undefined, text: outputText(canonical), request: body, response: canonical, metadata: context.metadata },
    requireRegistry(deps),
    context.signal,
  );
  return { text, outcome, status: statusOf(outcome) };
}
