/**
 * The routing config (x-gateway-config, or a stored config): its schema, published in the OpenAPI document, and
 * `parseConfig`, which turns a header value or a stored object into a validated, normalised `Config`.
 *
 * Grammar: docs spec api-surface.md §5.2 (the OSS gateway's zod schema), made strict: every object is closed
 * (additionalProperties: false) so a typo is a 400 naming its path instead of a silently ignored setting. The
 * open objects are the ones whose keys are the user's: `override_params`, a condition's `query`, hook objects and
 * inline guardrails.
 *
 * Every error is a 400 whose `param` is the path inside the config (`config.targets[1].retry.attempts`) and whose
 * message starts with that path, so a client can find the faulty field in a nested config.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { invalidParam } from '../core/errors.ts';
import { StringEnum } from '../http/schemas/common.ts';
import { formatFirstError } from '../http/schemas/format-error.ts';
import { checkConfigRules, type RuleOptions } from './config-rules.ts';

const CLOSED = { additionalProperties: false } as const;
const OPEN = { additionalProperties: true } as const;

const NonEmpty = Type.String({ minLength: 1 });
const StatusCodes = Type.Array(Type.Integer({ minimum: 100, maximum: 599 }));
/** An RFC 9110 header-name token, as x-gateway-forward-headers accepts them. */
const HeaderName = Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" });
const CacheMode = StringEnum(['simple', 'semantic'] as const);
/** A guardrail is referenced by its id (slug) or defined inline as a hook object. */
const Guardrails = Type.Array(Type.Union([NonEmpty, Type.Object({}, OPEN)]));
const Hooks = Type.Array(Type.Object({}, OPEN));

export const StrategySchema = Type.Object(
  {
    mode: StringEnum(['single', 'fallback', 'loadbalance', 'conditional'] as const),
    /** fallback only: the statuses that move on to the next target (default: any non-2xx) */
    on_status_codes: Type.Optional(StatusCodes),
    /** conditional only: the first condition whose query matches names the target (`then`) */
    conditions: Type.Optional(
      Type.Array(Type.Object({ query: Type.Object({}, OPEN), then: NonEmpty }, CLOSED), { minItems: 1 }),
    ),
    /** conditional only: the target name used when no condition matches */
    default: Type.Optional(NonEmpty),
  },
  CLOSED,
);

export const RetrySchema = Type.Object(
  {
    attempts: Type.Integer({ minimum: 0, maximum: 10 }),
    on_status_codes: Type.Optional(StatusCodes),
    use_retry_after_header: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);

/**
 * Cloud credentials and settings, snake_case. Each maps to the x-gateway-<name with dashes> header and to the
 * `cloud` record of a ProviderTarget under that header suffix (`aws_region` -> `aws-region`).
 */
const CloudSettings = {
  aws_access_key_id: Type.Optional(NonEmpty),
  aws_secret_access_key: Type.Optional(NonEmpty),
  aws_session_token: Type.Optional(NonEmpty),
  aws_region: Type.Optional(NonEmpty),
  vertex_project_id: Type.Optional(NonEmpty),
  vertex_region: Type.Optional(NonEmpty),
  vertex_service_account_json: Type.Optional(NonEmpty),
  azure_resource_name: Type.Optional(NonEmpty),
  azure_deployment_id: Type.Optional(NonEmpty),
  azure_api_version: Type.Optional(NonEmpty),
  azure_model_name: Type.Optional(NonEmpty),
  azure_auth_mode: Type.Optional(NonEmpty),
};
export type CloudField = keyof typeof CloudSettings;
export const CLOUD_FIELDS = Object.keys(CloudSettings) as readonly CloudField[];

/**
 * The semantic cache's embedding target: its own destination (never inherited from the config tree, like a
 * target's), except that credentials it leaves out come from the answering target when both name the same provider.
 */
export const EmbeddingTargetSchema = Type.Object(
  { provider: NonEmpty, model: NonEmpty, api_key: Type.Optional(NonEmpty), custom_host: Type.Optional(NonEmpty), ...CloudSettings },
  CLOSED,
);

export const CacheSchema = Type.Object(
  {
    mode: CacheMode,
    max_age: Type.Optional(Type.Integer({ minimum: 1, description: 'seconds' })),
    /** semantic only: the cosine similarity a match needs; default 0.95 (DEFAULT_SEMANTIC_THRESHOLD) */
    similarity_threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
    /** semantic only: the provider and model that embed the final user turn */
    embedding: Type.Optional(EmbeddingTargetSchema),
  },
  CLOSED,
);

export const ConfigSchema = Type.Recursive(
  (This) =>
    Type.Object(
      {
        strategy: Type.Optional(StrategySchema),
        targets: Type.Optional(Type.Array(This, { minItems: 1, maxItems: 100 })),
        /** a target's name, referred to by conditional routing */
        name: Type.Optional(NonEmpty),
        /** loadbalance share; a missing weight counts as 1, 0 is never chosen */
        weight: Type.Optional(Type.Number({ minimum: 0 })),
        provider: Type.Optional(NonEmpty),
        api_key: Type.Optional(NonEmpty),
        virtual_key: Type.Optional(NonEmpty),
        custom_host: Type.Optional(NonEmpty),
        override_params: Type.Optional(Type.Object({}, OPEN)),
        retry: Type.Optional(RetrySchema),
        request_timeout: Type.Optional(Type.Integer({ minimum: 1, description: 'milliseconds' })),
        cache: Type.Optional(Type.Union([CacheMode, CacheSchema])),
        input_guardrails: Type.Optional(Guardrails),
        output_guardrails: Type.Optional(Guardrails),
        before_request_hooks: Type.Optional(Hooks),
        after_request_hooks: Type.Optional(Hooks),
        forward_headers: Type.Optional(Type.Array(HeaderName)),
        fetch_integrated_models: Type.Optional(Type.Boolean()),
        strict_open_ai_compliance: Type.Optional(Type.Boolean()),
        strict_reference_compliance: Type.Optional(Type.Boolean()),
        ...CloudSettings,
      },
      CLOSED,
    ),
  { $id: 'GatewayConfig', title: 'Gateway routing config' },
);

/** The config as written by the client (cache may be a bare mode string). */
export type ConfigInput = Static<typeof ConfigSchema>;
export type Strategy = Static<typeof StrategySchema>;
export type StrategyMode = Strategy['mode'];
export type RetryConfig = Static<typeof RetrySchema>;
export type CacheConfig = Static<typeof CacheSchema>;
export type EmbeddingTargetConfig = Static<typeof EmbeddingTargetSchema>;

/** A validated config: `cache` is always an object and every target is itself a Config. */
export interface Config extends Omit<ConfigInput, 'cache' | 'targets'> {
  cache?: CacheConfig;
  targets?: Config[];
}

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
