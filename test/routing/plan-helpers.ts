/** Shared by the planner tests: a seeded PRNG, config building, and a walk through a plan as the executor would. */
import type { ConditionInput } from '../../src/routing/conditions.ts';
import { parseConfig, type Config } from '../../src/routing/config-schema.ts';
import { nextAttempt, type Plan } from '../../src/routing/planner.ts';

/** A tiny seeded PRNG (mulberry32) so the weighted draws are reproducible. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function config(raw: object): Config {
  const parsed = parseConfig(JSON.stringify(raw));
  if (parsed.kind !== 'inline') throw new Error('expected an inline config');
  return parsed.config;
}

export const request: ConditionInput = { metadata: { user_plan: 'pro' }, params: { model: 'gpt-4o', max_tokens: 100 } };
/** A random() that always draws the first positive share. */
export const alwaysZero = () => 0;
export const leaf = (name: string, extra: object = {}) => ({ name, provider: 'openai', api_key: `key-${name}`, ...extra });
export const names = (planned: Plan) => planned.attempts.map((attempt) => attempt.name);

/** Follows the plan as the executor would when every attempt fails with `failure`. */
export function walk(planned: Plan, failure: number | 'network'): Array<string | undefined> {
  const visited: Array<string | undefined> = [];
  for (let at: number | undefined = 0; at !== undefined; at = nextAttempt(planned, at, failure)) {
    visited.push(planned.attempts[at]?.name);
  }
  return visited;
}
