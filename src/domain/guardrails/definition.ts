/**
 * What a guardrail stores: its checks, validated by the check registry, and its actions with every default
 * filled in (api-surface §3.14), so the pipeline reads one complete shape and never applies defaults itself.
 */
import type { CheckRegistry } from '../../guardrails/registry.ts';
import { prepareChecks } from '../../guardrails/run.ts';
import type { CheckConfig } from '../../guardrails/types.ts';
import type { GuardrailActionsInput, GuardrailCheckInput } from './inputs.ts';

export interface GuardrailFeedback {
  value: number;
  weight: number;
  metadata: string;
}

export interface GuardrailActions {
  /** a failed check denies the request (446) instead of only being reported */
  deny: boolean;
  /** the checks run without holding the request; their verdicts are only recorded */
  async: boolean;
  on_success: { feedback: GuardrailFeedback };
  on_fail: { feedback: GuardrailFeedback };
}

/** A check as stored: `parameters` always an object, `is_enabled` always set. */
export interface StoredCheck extends CheckConfig {
  parameters: Record<string, unknown>;
  is_enabled: boolean;
}

function feedback(given: Partial<GuardrailFeedback> | undefined, value: number): GuardrailFeedback {
  return { value: given?.value ?? value, weight: given?.weight ?? 1, metadata: given?.metadata ?? '' };
}

export function normaliseActions(actions: GuardrailActionsInput): GuardrailActions {
  return {
    deny: actions.deny ?? false,
    async: actions.async ?? false,
    on_success: { feedback: feedback(actions.on_success?.feedback, 5) },
    on_fail: { feedback: feedback(actions.on_fail?.feedback, -5) },
  };
}

/**
 * Validates the checks against the registry (a 400 naming `checks[i].id` or `checks[i].parameters.<field>`: an
 * unknown or unsupported check, or bad parameters) and returns them as stored.
 */
export function normaliseChecks(checks: readonly GuardrailCheckInput[], registry: CheckRegistry): StoredCheck[] {
  const stored = checks.map((check): StoredCheck => ({
    id: check.id,
    parameters: check.parameters ?? {},
    ...(check.name !== undefined ? { name: check.name } : {}),
    is_enabled: check.is_enabled ?? true,
  }));
  prepareChecks(stored, registry);
  return stored;
}
