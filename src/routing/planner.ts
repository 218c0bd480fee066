/**
 * The planner: a parsed config plus one request -> the ordered attempts the executor may make. Pure: the
 * loadbalance draw uses the injected `random`, conditions read only the request.
 *
 * Shape: a flat list, in the order a depth-first walk meets the leaves. Every choice that does not depend on an
 * upstream answer is made here, so only fallbacks remain: a loadbalance contributes its ONE drawn target, a
 * conditional its ONE matched target, `single` its first target; a fallback contributes all of its targets.
 * Each attempt lists the fallbacks it sits in, innermost first, and for each the attempt that fallback moves on
 * to. `nextAttempt` walks that list outwards, which is how nested fallbacks behave: an inner fallback that is not
 * triggered, or has no target left, hands the failure to the fallback around it.
 *
 * `attempts[0]` is always tried first. Retries (target.retry) happen within one attempt, before asking for the next.
 */
import { badRequest } from '../core/errors.ts';
import { matchesQuery, type ConditionInput } from './conditions.ts';
import type { Config } from './config-schema.ts';
import { inherit, NO_SETTINGS, type PlannedTarget } from './target-settings.ts';

export interface FallbackLink {
  /** the fallback config's path, e.g. `config` or `config.targets[0]` */
  path: string;
  /** the statuses that move this fallback on; undefined means any status outside 2xx */
  onStatusCodes: readonly number[] | undefined;
  /** the attempt this fallback moves on to; undefined when the attempt is inside its last target */
  next: number | undefined;
}

export interface Attempt {
  /** where the target is in the config, e.g. `config.targets[1].targets[0]`; `config` for a config without targets */
  path: string;
  /**
   * the same position as target indexes joined by dots (`1.0`), for x-gateway-last-used-option-index and logs;
   * empty for a config without targets (no option was chosen)
   */
  index: string;
  /** the target's own `name`, when it has one */
  name: string | undefined;
  target: PlannedTarget;
  /** the fallbacks this attempt belongs to, innermost first */
  fallbacks: readonly FallbackLink[];
}

export interface Plan {
  /** never empty */
  attempts: readonly Attempt[];
  /** the top-level strategy: single (no strategy), fallback, loadbalance or conditional */
  mode: string;
}

/** Why an attempt failed: the upstream status, or `network` for a connection error or a timeout. */
export type AttemptFailure = number | 'network';

export function plan(config: Config, request: ConditionInput, random: () => number): Plan {
  const attempts: Attempt[] = [];
  expand(config, { path: 'config', indexes: [], settings: NO_SETTINGS, fallbacks: [] }, request, random, attempts);
  return { attempts, mode: config.strategy?.mode ?? 'single' };
}

/**
 * The attempt to make after attempt `current` failed (its retries included), or undefined when the failure is
 * final and should be returned to the client.
 */
export function nextAttempt(planned: Plan, current: number, failure: AttemptFailure): number | undefined {
  for (const link of planned.attempts[current]?.fallbacks ?? []) {
    if (link.next !== undefined && triggers(link.onStatusCodes, failure)) return link.next;
  }
  return undefined;
}

function triggers(onStatusCodes: readonly number[] | undefined, failure: AttemptFailure): boolean {
  if (failure === 'network') return true;
  return onStatusCodes === undefined ? failure < 200 || failure > 299 : onStatusCodes.includes(failure);
}

interface Position {
  path: string;
  indexes: readonly number[];
  /** the settings inherited from the ancestors */
  settings: PlannedTarget;
  fallbacks: readonly FallbackLink[];
}

function expand(node: Config, at: Position, request: ConditionInput, random: () => number, out: Attempt[]): void {
  const settings = inherit(at.settings, node);
  const { strategy, targets } = node;
  if (strategy === undefined || targets === undefined || targets.length === 0) {
    out.push({ path: at.path, index: at.indexes.join('.'), name: node.name, target: settings, fallbacks: at.fallbacks });
    return;
  }
  const child = (index: number, fallbacks: readonly FallbackLink[]): Position => ({
    path: `${at.path}.targets[${index}]`,
    indexes: [...at.indexes, index],
    settings,
    fallbacks,
  });
  const only = (index: number) => expand(targets[index] ?? {}, child(index, at.fallbacks), request, random, out);
  switch (strategy.mode) {
    case 'single':
      return only(0);
    case 'loadbalance':
      return only(pickWeighted(targets, random));
    case 'conditional':
      return only(pickConditional(node, targets, at.path, request));
    case 'fallback':
      targets.forEach((target, index) => {
        const link: FallbackLink = { path: at.path, onStatusCodes: strategy.on_status_codes, next: undefined };
        expand(target, child(index, [link, ...at.fallbacks]), request, random, out);
        // every target contributes at least one attempt, so the next target starts where this one ended
        if (index < targets.length - 1) link.next = out.length;
      });
      return;
  }
}

/**
 * One weighted draw: a missing weight counts as 1, weights are shares of their sum, and a weight of 0 is never
 * drawn (parseConfig guarantees at least one positive weight).
 */
function pickWeighted(targets: readonly Config[], random: () => number): number {
  const weights = targets.map((target) => target.weight ?? 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let point = random() * total;
  let lastPositive = 0;
  for (const [index, weight] of weights.entries()) {
    if (weight <= 0) continue;
    if (point < weight) return index;
    point -= weight;
    lastPositive = index;
  }
  // rounding (or a random() of exactly 1) can leave the point past the end: it belongs to the last positive share
  return lastPositive;
}

/** The first condition whose query matches names the target; else `default`; else a 400. */
function pickConditional(node: Config, targets: readonly Config[], path: string, request: ConditionInput): number {
  const strategy = node.strategy;
  const matched = strategy?.conditions?.find((condition) => matchesQuery(condition.query, request));
  const name = matched?.then ?? strategy?.default;
  const index = name === undefined ? -1 : targets.findIndex((target) => target.name === name);
  if (index === -1) {
    throw badRequest(
      `No condition of ${path}.strategy matched the request and it has no default target.`,
      'no_condition_matched',
      `${path}.strategy`,
    );
  }
  return index;
}
