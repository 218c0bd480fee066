/**
 * Runs a guardrail's checks against one context: every enabled check concurrently, each timed. What to do with
 * the outcome (deny, async, feedback: api-surface §3.14 actions) is the pipeline's decision, not this module's.
 *
 * Configuration errors (a malformed check list, an unknown id, invalid parameters) throw a 400 before any check
 * runs. A check that throws while running fails closed: its verdict is false and the other checks still report.
 */
import { invalidParam } from '../core/errors.ts';
import { applyRedactions } from './redact.ts';
import type { CheckRegistry } from './registry.ts';
import type { BoundCheck, CheckConfig, CheckContext, CheckResult, Redaction, Verdict } from './types.ts';

export interface RunOptions {
  registry: CheckRegistry;
  /** aborted when the caller gives up; remote checks stop waiting and fail */
  signal?: AbortSignal;
  /** a monotonic clock in milliseconds (tests inject one) */
  now?: () => number;
}

export interface RunResult {
  /** true when every enabled check passed (also when none is enabled) */
  passed: boolean;
  /** one per enabled check, in configuration order */
  verdicts: Verdict[];
  /** `context.text` with the redactions of every redacting check applied; absent when nothing was redacted */
  redactedText?: string;
}

export interface PreparedCheck {
  id: string;
  enabled: boolean;
  check: BoundCheck;
}

/**
 * Validates a guardrail's `checks` (as stored or as sent to the admin API) and binds each to its parameters.
 * Disabled checks are validated too: a configuration is valid or not regardless of which checks are switched on.
 */
export function prepareChecks(checks: unknown, registry: CheckRegistry): PreparedCheck[] {
  if (!Array.isArray(checks)) throw invalidParam('checks', 'checks: must be an array of checks');
  return checks.map((entry: unknown, index) => {
    const path = `checks[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw invalidParam(path, `${path}: must be an object`);
    }
    const config = entry as Partial<CheckConfig>;
    if (typeof config.id !== 'string' || config.id === '') throw invalidParam(`${path}.id`, `${path}.id: must be a non-empty string`);
    if (config.is_enabled !== undefined && typeof config.is_enabled !== 'boolean') {
      throw invalidParam(`${path}.is_enabled`, `${path}.is_enabled: must be a boolean`);
    }
    return { id: config.id, enabled: config.is_enabled !== false, check: registry.bind(entry as CheckConfig, path) };
  });
}

async function runOne(prepared: PreparedCheck, context: CheckContext, options: RunOptions, now: () => number): Promise<Verdict> {
  const start = now();
  let result: CheckResult;
  try {
    result = await prepared.check(context, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    result = { verdict: false, explanation: `The check could not run: ${message}` };
  }
  return { id: prepared.id, ...result, durationMs: Math.round((now() - start) * 1000) / 1000 };
}

export async function runChecks(checks: readonly CheckConfig[], context: CheckContext, options: RunOptions): Promise<RunResult> {
  const now = options.now ?? (() => performance.now());
  const enabled = prepareChecks(checks, options.registry).filter((prepared) => prepared.enabled);
  const verdicts = await Promise.all(enabled.map((prepared) => runOne(prepared, context, options, now)));
  const redactions: Redaction[] = verdicts.flatMap((verdict) => verdict.redactions ?? []);
  return {
    passed: verdicts.every((verdict) => verdict.verdict),
    verdicts,
    ...(redactions.length > 0 ? { redactedText: applyRedactions(context.text, redactions) } : {}),
  };
}
