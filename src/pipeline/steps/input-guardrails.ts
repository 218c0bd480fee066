/**
 * Input guardrails of one attempt: the workspace's default hooks first, then the attempt's own (config), run on
 * the request before any provider call. Their verdict is a status the retry and fallback settings can name:
 * - 446 (GUARDRAIL_DENIED_STATUS): a failing hook that says `deny`;
 * - 246 (GUARDRAIL_FAILED_STATUS): a failing hook without `deny` (the request still goes out);
 * - 200: every hook passed.
 * Input verdicts are deterministic for one request, so an input failure is never retried, only handed to a
 * fallback. A redaction rewrites the body before it goes upstream. The output hooks are resolved here too, once,
 * and handed to the output step.
 */
import type { AbortLink } from '../../core/abort-link.ts';
import type { GatewayHeaders, Principal } from '../../core/context.ts';
import {
  GUARDRAIL_DENIED_STATUS,
  GUARDRAIL_FAILED_STATUS,
  inputText,
  resolveHooks,
  runHooks,
  withInputText,
  type GuardrailHook,
  type HookResult,
  type HooksOutcome,
  type SavedGuardrailLookup,
} from '../../guardrails/hooks.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { SavedGuardrails } from '../../domain/guardrails/saved-guardrails.ts';
import { withBody, type InferenceCall } from '../../core/inference-call.ts';
import type { Guardrail } from '../../routing/target-settings.ts';
import type { WorkspaceRequestDefaults } from '../../domain/workspaces/request-defaults.ts';

export type GuardrailStatus = 200 | typeof GUARDRAIL_FAILED_STATUS | typeof GUARDRAIL_DENIED_STATUS;

export interface GuardDeps {
  checks: CheckRegistry;
  savedGuardrails: SavedGuardrails;
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

export function statusOf(outcome: Pick<HooksOutcome, 'passed' | 'denied'>): GuardrailStatus {
  if (outcome.denied) return GUARDRAIL_DENIED_STATUS;
  return outcome.passed ? 200 : GUARDRAIL_FAILED_STATUS;
}

export function bodyOf(call: InferenceCall): Record<string, unknown> {
  return (typeof call.body === 'object' && call.body !== null ? call.body : {}) as Record<string, unknown>;
}

function lookupFor(deps: GuardDeps, principal: Principal | undefined): SavedGuardrailLookup | undefined {
  const saved = deps.savedGuardrails;
  if (!principal) return undefined;
  return (id) => saved(principal.organisationId, principal.workspaceId, id);
}

/** The workspace's hooks, then the config's; an unknown entry is a 400 naming where it was written. */
async function hooksOf(workspace: readonly string[], config: readonly Guardrail[] | undefined, path: string, lookup: SavedGuardrailLookup | undefined) {
  const own = await resolveHooks(config, path, lookup);
  if (workspace.length === 0) return own;
  const inherited = await resolveHooks(workspace, `workspace.defaults.${path.slice(path.lastIndexOf('.') + 1)}`, lookup);
  return [...inherited, ...own];
}

const NOTHING_TO_RUN: readonly Guardrail[] = [];

/** A legacy hook entry that only names a saved guardrail: `{"id": "pii-check"}` (or with `type: "guardrail"`). */
function savedReference(entry: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof entry.id !== 'string') return undefined;
  return Object.keys(entry).every((key) => key === 'id' || key === 'type') ? entry.id : undefined;
}

/**
 * A target's hooks: `input_guardrails`/`output_guardrails`, then the compatible gateway's older spelling of the
 * same lists, `before_request_hooks`/`after_request_hooks` (inline hooks, or `{id}` naming a saved guardrail).
 */
export function targetHooks(own: readonly Guardrail[] | undefined, legacy: readonly Readonly<Record<string, unknown>>[] | undefined): readonly Guardrail[] | undefined {
  if (!legacy || legacy.length === 0) return own;
  return [...(own ?? NOTHING_TO_RUN), ...legacy.map((entry) => savedReference(entry) ?? entry)];
}

const NO_RESULTS: HookResult[] = [];
const NO_HOOKS: GuardrailHook[] = [];

/**
 * Resolves the attempt's hooks and runs the input ones. Most requests have no hook at all: they get their answer
 * synchronously (no lookup, no promise), so the executor awaits only when there is something to wait for.
 */
export function guardInput(call: InferenceCall, inputs: GuardInputs, deps: GuardDeps): GuardedInput | Promise<GuardedInput> {
  const { workspace } = inputs;
  if (workspace.inputGuardrails.length === 0 && workspace.outputGuardrails.length === 0 && !inputs.input?.length && !inputs.output?.length) {
    return { call, input: NO_RESULTS, output: NO_HOOKS, status: 200 };
  }
  return runInputHooks(call, inputs, deps);
}

async function runInputHooks(call: InferenceCall, inputs: GuardInputs, deps: GuardDeps): Promise<GuardedInput> {
  const { workspace } = inputs;
  const lookup = lookupFor(deps, inputs.principal);
  const input = await hooksOf(workspace.inputGuardrails, inputs.input ?? NOTHING_TO_RUN, `${inputs.path}.input_guardrails`, lookup);
  const output = await hooksOf(workspace.outputGuardrails, inputs.output ?? NOTHING_TO_RUN, `${inputs.path}.output_guardrails`, lookup);
  if (input.length === 0) return { call, input: [], output, status: 200 };
  const body = bodyOf(call);
  const outcome = await runHooks(
    input,
    { phase: 'input', requestType: call.route, model: typeof body.model === 'string' ? body.model : undefined, text: inputText(body), request: body, response: undefined, metadata: inputs.headers.metadata },
    deps.checks,
    inputs.clientGone.signal,
  );
  const status = statusOf(outcome);
  if (outcome.redactedText === undefined || status === GUARDRAIL_DENIED_STATUS) return { call, input: outcome.results, output, status };
  const redacted = withInputText(body, outcome.redactedText);
  return { call: withBody(call, redacted), input: outcome.results, output, status };
}
