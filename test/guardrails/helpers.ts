/** Shared builders for the guardrail tests: a context with defaults, and one-check runs through the registry. */
import assert from 'node:assert/strict';
import { GatewayError } from '../../src/core/errors.ts';
import { createCheckRegistry, type CheckRegistry, type CheckRegistryOptions } from '../../src/guardrails/registry.ts';
import { runChecks } from '../../src/guardrails/run.ts';
import type { CheckContext, Verdict } from '../../src/guardrails/types.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';

export function makeContext(overrides: Partial<CheckContext> = {}): CheckContext {
  return {
    phase: 'input',
    requestType: 'chat',
    model: 'gpt-4o-mini',
    text: '',
    json: undefined,
    request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: '' }] },
    response: undefined,
    metadata: {},
    ...overrides,
  };
}

export function makeRegistry(options: Partial<CheckRegistryOptions> = {}): CheckRegistry {
  return createCheckRegistry({ allowlist: parseAllowlist([]), ...options });
}

/** Runs one check through `runChecks` (so parameters are validated as in production) and returns its verdict. */
export async function runOne(
  registry: CheckRegistry,
  id: string,
  parameters: unknown,
  context: Partial<CheckContext> = {},
): Promise<Verdict> {
  const result = await runChecks([{ id, parameters }], makeContext(context), { registry });
  assert.equal(result.verdicts.length, 1);
  const verdict = result.verdicts[0]!;
  assert.equal(verdict.id, id);
  assert.equal(result.passed, verdict.verdict);
  return verdict;
}

/** Asserts a 400 invalid_request_error naming `param`. */
export async function rejects400(promise: Promise<unknown>, param: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    return true;
  });
}
