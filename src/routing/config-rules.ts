/**
 * The checks a JSON schema cannot express, run after the schema check on every node of the config tree.
 * Each failure is a 400 whose param is the path of the offending field, e.g. `config.targets[1].strategy.default`.
 */
import { invalidParam } from '../core/errors.ts';
import { checkQuery } from './conditions.ts';
import type { ConfigInput } from './config-grammar.ts';

export interface RuleOptions {
  /** when given, a `provider` for which it returns false is refused at parse time, naming its path */
  isKnownProvider?: (provider: string) => boolean;
  /** when given, a semantic cache's embedding provider for which it returns false is refused the same way */
  servesEmbeddings?: (provider: string) => boolean;
}

const fail = (path: string, message: string) => invalidParam(path, `${path} ${message}`, 'invalid_config');

/**
 * `hasDestination` is true when an ancestor set a provider or virtual key, which the node inherits. The root may
 * have none at all: the request headers (x-gateway-provider, x-gateway-virtual-key) then say where to go.
 */
export function checkConfigRules(node: ConfigInput, path: string, options: RuleOptions, hasDestination = false): void {
  checkFields(node, path, options);
  const { strategy, targets } = node;
  const destination = hasDestination || node.provider !== undefined || node.virtual_key !== undefined;
  if (strategy === undefined || targets === undefined) {
    if (strategy !== undefined) throw fail(`${path}.targets`, 'is required when a strategy is set');
    if (targets !== undefined) throw fail(`${path}.strategy`, 'is required when targets are set');
    if (path !== 'config' && !destination) throw fail(path, 'must set provider, virtual_key or targets');
    return;
  }
  const at = `${path}.strategy`;
  if (strategy.mode !== 'fallback' && strategy.on_status_codes !== undefined) {
    throw fail(`${at}.on_status_codes`, 'is only allowed with mode fallback');
  }
  if (strategy.mode !== 'conditional') {
    if (strategy.conditions !== undefined) throw fail(`${at}.conditions`, 'is only allowed with mode conditional');
    if (strategy.default !== undefined) throw fail(`${at}.default`, 'is only allowed with mode conditional');
  }
  if (strategy.mode === 'conditional') checkConditional(node, path);
  if (strategy.mode === 'loadbalance' && !targets.some((target) => (target.weight ?? 1) > 0)) {
    throw fail(`${path}.targets`, 'must have at least one target with a weight above 0 (a missing weight counts as 1)');
  }
  targets.forEach((target, index) => checkConfigRules(target, `${path}.targets[${index}]`, options, destination));
}

function checkFields(node: ConfigInput, path: string, options: RuleOptions): void {
  if (node.provider !== undefined && options.isKnownProvider && !options.isKnownProvider(node.provider)) {
    throw fail(`${path}.provider`, `names an unknown provider "${node.provider}"`);
  }
  if (node.custom_host !== undefined && !isHttpUrl(node.custom_host)) {
    throw fail(`${path}.custom_host`, 'must be an http or https URL');
  }
  checkCache(node, path, options);
  const forwarded = node.forward_headers ?? [];
  const loop = forwarded.findIndex((name) => name.toLowerCase() === 'x-gateway-forward-headers');
  if (loop !== -1) throw fail(`${path}.forward_headers[${loop}]`, 'cannot name x-gateway-forward-headers');
}

/** The semantic settings belong to mode semantic, and its embedding target must be able to embed. */
function checkCache(node: ConfigInput, path: string, options: RuleOptions): void {
  const cache = node.cache;
  if (typeof cache !== 'object') return;
  const at = `${path}.cache`;
  if (cache.mode !== 'semantic') {
    if (cache.similarity_threshold !== undefined) throw fail(`${at}.similarity_threshold`, 'is only allowed with mode semantic');
    if (cache.embedding !== undefined) throw fail(`${at}.embedding`, 'is only allowed with mode semantic');
    return;
  }
  const embedding = cache.embedding;
  if (embedding === undefined) return;
  if (options.isKnownProvider && !options.isKnownProvider(embedding.provider)) {
    throw fail(`${at}.embedding.provider`, `names an unknown provider "${embedding.provider}"`);
  }
  if (options.servesEmbeddings && !options.servesEmbeddings(embedding.provider)) {
    throw fail(`${at}.embedding.provider`, `names "${embedding.provider}", which does not serve embeddings`);
  }
  if (embedding.custom_host !== undefined && !isHttpUrl(embedding.custom_host)) {
    throw fail(`${at}.embedding.custom_host`, 'must be an http or https URL');
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Conditional: every target has a unique name, and every `then` and the `default` name one of them. */
function checkConditional(node: ConfigInput, path: string): void {
  const conditions = node.strategy?.conditions;
  if (conditions === undefined) throw fail(`${path}.strategy.conditions`, 'is required with mode conditional');
  const names = new Map<string, number>();
  (node.targets ?? []).forEach((target, index) => {
    const at = `${path}.targets[${index}].name`;
    if (target.name === undefined) throw fail(at, 'is required with mode conditional (conditions refer to targets by name)');
    const previous = names.get(target.name);
    if (previous !== undefined) throw fail(at, `"${target.name}" is already used by ${path}.targets[${previous}]`);
    names.set(target.name, index);
  });
  conditions.forEach((condition, index) => {
    const at = `${path}.strategy.conditions[${index}]`;
    checkQuery(condition.query, `${at}.query`);
    if (!names.has(condition.then)) throw fail(`${at}.then`, `names no target ("${condition.then}")`);
  });
  const fallback = node.strategy?.default;
  if (fallback !== undefined && !names.has(fallback)) {
    throw fail(`${path}.strategy.default`, `names no target ("${fallback}")`);
  }
}
