/**
 * The routing config (x-gateway-config, or a stored config): `parseConfig`, which turns a header value or a stored
 * object into a validated, normalised `Config`. The schema itself lives in config-grammar.ts and is re-exported
 * here, so callers keep one import for the config's schema, types and parser.
 *
 * Every error is a 400 whose `param` is the path inside the config (`config.targets[1].retry.attempts`) and whose
 * message starts with that path, so a client can find the faulty field in a nested config.
 *
 * The cloud fields a target accepts are the ones the registered adapters declare: `parseConfig` and `ConfigSchema`
 * are built from them once, when this module loads (the schema's validator is compiled on first use);
 * `createConfigParser` builds the same from other declarations.
 */
import { Ajv } from 'ajv';
import { invalidParam } from '../core/errors.ts';
import { formatFirstError } from '../core/schemas/format-error.ts';
import { compileOnFirstUse } from '../core/schemas/compile-on-first-use.ts';
import type { CloudSettings } from '../providers/contract.ts';
import { registeredCloudSettings } from '../providers/registry.ts';
import { createConfigGrammar, type CacheConfig, type CloudFields, type CloudValues, type Config, type ConfigInput } from './config-grammar.ts';
import { checkConfigRules, type RuleOptions } from './config-rules.ts';

export * from './config-grammar.ts';

/** What a header value or stored config turned out to be: a config to plan with, or an id to look up first. */
export type ParsedConfig = { kind: 'inline'; config: Config } | { kind: 'reference'; id: string };

export type ParseConfigOptions = RuleOptions;

const HEADER = 'x-gateway-config';
/** Config ids and slugs (`pc-abc123`, `my-config`): anything else that is not JSON is a malformed header. */
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,254}$/;

export interface ConfigParser {
  /** the grammar's schema: what the OpenAPI document publishes as GatewayConfig */
  schema: ReturnType<typeof createConfigGrammar>['config'];
  /**
   * Parses an x-gateway-config value: a JSON object (inline config) or a config id. A non-string value is taken
   * as an already-decoded config (a stored config version). Throws a 400 naming the path of the first problem.
   */
  parse(raw: unknown, options?: ParseConfigOptions): ParsedConfig;
}

/** A parser whose targets accept the cloud fields of these declarations (the adapters' cloud-settings.ts). */
export function createConfigParser(declarations: readonly CloudSettings[]): ConfigParser {
  const { config: schema, cloudFields } = createConfigGrammar(declarations);
  // an Ajv of its own: the schema's $id (GatewayConfig) may be added to an Ajv once
  const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });
  const compiled = compileOnFirstUse<ConfigInput>(ajv, schema);
  const parse = (raw: unknown, options: ParseConfigOptions = {}): ParsedConfig => {
    const reference = referenceIn(raw);
    if (reference !== undefined) return { kind: 'reference', id: reference };
    const value = decode(raw);
    const check = compiled();
    if (!check(value)) {
      const { param, message } = formatFirstError(check.errors ?? [], schema, value);
      // formatFirstError names fields relative to the object it checked (`body` for the object itself), and every
      // message starts with that name: rewrite both so the path starts at the config
      const path = param === 'body' ? 'config' : `config.${param}`;
      throw invalidParam(path, `${path}${message.slice(param.length)}`, 'invalid_config');
    }
    checkConfigRules(value, 'config', options);
    return { kind: 'inline', config: normalise(value, cloudFields) };
  };
  return { schema, parse };
}

const registered = createConfigParser(registeredCloudSettings());
/** The routing config's schema, with the cloud fields of every registered provider. */
export const ConfigSchema = registered.schema;
/** Parses a config against ConfigSchema (see ConfigParser.parse). */
export const parseConfig: ConfigParser['parse'] = registered.parse;

/** The config id or slug a header value names; undefined when it holds JSON. Anything else is a malformed header. */
function referenceIn(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (/^[{["]/.test(text)) return undefined;
  if (REFERENCE.test(text)) return text;
  throw invalidParam(HEADER, `${HEADER} must be a config id or a JSON object.`, 'invalid_config');
}

/** The JSON object a header value or stored config holds, checked for shape and depth before the schema runs. */
function decode(raw: unknown): object {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw.trim());
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
  return value;
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

/**
 * A copy the planner reads in one shape: `cache: "simple"` spelled `{ mode: "simple" }`, and the cloud fields
 * gathered in `cloud` under their ProviderTarget.cloud keys (`foo_region` -> `foo-region`), at every depth.
 */
function normalise(input: ConfigInput, fields: CloudFields): Config {
  const { cache, targets, ...rest } = input;
  const config: Config = withCloudGathered(rest, fields);
  if (cache !== undefined) config.cache = typeof cache === 'string' ? { mode: cache } : normaliseCache(cache, fields);
  if (targets !== undefined) config.targets = targets.map((target) => normalise(target, fields));
  return config;
}

function normaliseCache(cache: Exclude<ConfigInput['cache'], string | undefined>, fields: CloudFields): CacheConfig {
  const { embedding, ...rest } = cache;
  return embedding === undefined ? rest : { ...rest, embedding: withCloudGathered(embedding, fields) };
}

/**
 * `node` with its cloud fields moved into `cloud` (left out when it sets none). The static type of a node never
 * lists the cloud fields (config-grammar.ts adds them at run time), so the copy keeps `T`.
 */
function withCloudGathered<T extends object>(node: T, fields: CloudFields): T & { cloud?: CloudValues } {
  const copy: Record<string, unknown> = {};
  const cloud: Record<string, string> = {};
  for (const [name, value] of Object.entries(node) as Array<[string, unknown]>) {
    const key = fields.get(name);
    if (key !== undefined && typeof value === 'string') cloud[key] = value;
    else copy[name] = value;
  }
  if (Object.keys(cloud).length > 0) copy.cloud = cloud;
  return copy as T & { cloud?: CloudValues };
}
