/**
 * The routing config (x-gateway-config, or a stored config): `parseConfig`, which turns a header value or a stored
 * object into a validated, normalised `Config`. The schema itself lives in config-grammar.ts and is re-exported
 * here, so callers keep one import for the config's schema, types and parser.
 *
 * Every error is a 400 whose `param` is the path inside the config (`config.targets[1].retry.attempts`) and whose
 * message starts with that path, so a client can find the faulty field in a nested config.
 */
import { Ajv } from 'ajv';
import { invalidParam } from '../core/errors.ts';
import { formatFirstError } from '../http/schemas/format-error.ts';
import { ConfigSchema, type Config, type ConfigInput } from './config-grammar.ts';
import { checkConfigRules, type RuleOptions } from './config-rules.ts';

export * from './config-grammar.ts';

/** What a header value or stored config turned out to be: a config to plan with, or an id to look up first. */
export type ParsedConfig = { kind: 'inline'; config: Config } | { kind: 'reference'; id: string };

export type ParseConfigOptions = RuleOptions;

const HEADER = 'x-gateway-config';
/** Config ids and slugs (`pc-abc123`, `my-config`): anything else that is not JSON is a malformed header. */
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,254}$/;

const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });
const check = ajv.compile<ConfigInput>(ConfigSchema);

/**
 * Parses an x-gateway-config value: a JSON object (inline config) or a config id. A non-string value is taken
 * as an already-decoded config (a stored config version). Throws a 400 naming the path of the first problem.
 */
export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): ParsedConfig {
  let value = raw;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (!/^[{["]/.test(text)) {
      if (REFERENCE.test(text)) return { kind: 'reference', id: text };
      throw invalidParam(HEADER, `${HEADER} must be a config id or a JSON object.`, 'invalid_config');
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidParam(HEADER, `${HEADER} is not valid JSON.`, 'invalid_config');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParam('config', 'config must be a JSON object.', 'invalid_config');
  }
  const tooDeep = pathBeyondDepth(value, 1);
  if (tooDeep !== undefined) {
    throw invalidParam(`config${tooDeep}`, `config${tooDeep} is nested deeper than ${MAX_DEPTH} levels.`, 'invalid_config');
  }
  if (!check(value)) {
    const { param, message } = formatFirstError(check.errors ?? [], ConfigSchema, value);
    // formatFirstError names fields relative to the object it checked (`body` for the object itself), and every
    // message starts with that name: rewrite both so the path starts at the config
    const path = param === 'body' ? 'config' : `config.${param}`;
    throw invalidParam(path, `${path}${message.slice(param.length)}`, 'invalid_config');
  }
  checkConfigRules(value, 'config', options);
  return { kind: 'inline', config: normalise(value) };
}

/**
 * ajv checks the recursive schema recursively, and so do the rules and the planner: a config nested thousands of
 * levels deep (a 45 KB body is enough) would exhaust the stack. Far deeper than any real config.
 */
const MAX_DEPTH = 64;

/** The path (below `config`) of a value nested deeper than MAX_DEPTH, built only when there is one. */
function pathBeyondDepth(node: unknown, depth: number): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (depth > MAX_DEPTH) return '';
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index += 1) {
      const rest = pathBeyondDepth(node[index], depth + 1);
      if (rest !== undefined) return `[${index}]${rest}`;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(node)) {
    const rest = pathBeyondDepth(inner, depth + 1);
    if (rest !== undefined) return `.${key}${rest}`;
  }
  return undefined;
}

/** A copy with `cache: "simple"` spelled `{ mode: "simple" }`, so the planner sees a single shape. */
function normalise(input: ConfigInput): Config {
  const { cache, targets, ...rest } = input;
  const config: Config = { ...rest };
  if (cache !== undefined) config.cache = typeof cache === 'string' ? { mode: cache } : cache;
  if (targets !== undefined) config.targets = targets.map(normalise);
  return config;
}
