/**
 * The routing config's grammar: the TypeBox schema (published in the OpenAPI document) and the types derived from
 * it. Its own module so that both the parser (config-schema.ts) and the rules a schema cannot express
 * (config-rules.ts) depend on it, and not on each other.
 *
 * Grammar: docs spec api-surface.md §5.2 (the OSS gateway's zod schema), made strict: every object is closed
 * (additionalProperties: false) so a typo is a 400 naming its path instead of a silently ignored setting. The
 * open objects are the ones whose keys are the user's: `override_params`, a condition's `query`, hook objects and
 * inline guardrails.
 */
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../core/schemas/common.ts';
import type { CloudSettings } from '../providers/contract.ts';

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

/** A config field that sets a cloud setting -> the ProviderTarget.cloud key it fills (the x-gateway-* header suffix). */
export type CloudFields = ReadonlyMap<string, string>;

/** Cloud settings as the planner reads them: keyed like ProviderTarget.cloud (`foo-region`). */
export type CloudValues = Readonly<Record<string, string>>;

/**
 * The config fields the adapters declare (src/providers/<vendor>/cloud-settings.ts). Two adapters may declare the
 * same field (a shared resource name) as long as it fills the same key; a field that shadows one of the grammar's
 * own, or fills two keys, is a declaration bug: it stops the start instead of silently picking one.
 */
function cloudFieldsOf(declarations: readonly CloudSettings[], reserved: ReadonlySet<string>): CloudFields {
  const fields = new Map<string, string>();
  for (const { settings } of declarations) {
    for (const { configField, key } of settings) {
      if (configField === undefined) continue;
      if (reserved.has(configField)) throw new Error(`cloud setting ${key}: config field ${configField} is already a config field`);
      const known = fields.get(configField);
      if (known !== undefined && known !== key) throw new Error(`config field ${configField} is declared for both ${known} and ${key}`);
      fields.set(configField, key);
    }
  }
  return fields;
}

/**
 * The cloud fields' properties are added to a target's at run time and left out of its static type: parseConfig
 * moves them into the normalised node's `cloud` record (keyed like ProviderTarget.cloud), the only place read.
 */
function withCloud<T extends TProperties>(properties: T, cloud: TProperties): T {
  return { ...properties, ...cloud };
}

const EMBEDDING_FIELDS = { provider: NonEmpty, model: NonEmpty, api_key: Type.Optional(NonEmpty), custom_host: Type.Optional(NonEmpty) };

/** A target's own fields, in the order ajv checks them; `self` is the recursive reference to a target. */
function targetFields<Self extends TSchema, Cache extends TSchema>(self: Self, cache: Cache) {
  return {
    strategy: Type.Optional(StrategySchema),
    targets: Type.Optional(Type.Array(self, { minItems: 1, maxItems: 100 })),
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
    cache: Type.Optional(Type.Union([CacheMode, cache])),
    input_guardrails: Type.Optional(Guardrails),
    output_guardrails: Type.Optional(Guardrails),
    before_request_hooks: Type.Optional(Hooks),
    after_request_hooks: Type.Optional(Hooks),
    forward_headers: Type.Optional(Type.Array(HeaderName)),
    fetch_integrated_models: Type.Optional(Type.Boolean()),
    strict_open_ai_compliance: Type.Optional(Type.Boolean()),
    strict_reference_compliance: Type.Optional(Type.Boolean()),
  };
}

/** Every field of the grammar's own: a cloud field may not reuse one. */
const OWN_FIELDS: ReadonlySet<string> = new Set([...Object.keys(targetFields(NonEmpty, NonEmpty)), ...Object.keys(EMBEDDING_FIELDS)]);

/**
 * The grammar for the given cloud declarations. Each declared config field is an optional non-empty string on a
 * target and on a semantic cache's embedding target, and maps to the `cloud` record of a ProviderTarget under its
 * declared key.
 */
export function createConfigGrammar(declarations: readonly CloudSettings[]) {
  const cloudFields = cloudFieldsOf(declarations, OWN_FIELDS);
  const cloud: TProperties = Object.fromEntries([...cloudFields.keys()].map((field) => [field, Type.Optional(NonEmpty)]));

  /**
   * The semantic cache's embedding target: its own destination (never inherited from the config tree, like a
   * target's), except that credentials it leaves out come from the answering target when both name the same provider.
   */
  const embedding = Type.Object(withCloud(EMBEDDING_FIELDS, cloud), CLOSED);

  const cache = Type.Object(
    {
      mode: CacheMode,
      max_age: Type.Optional(Type.Integer({ minimum: 1, description: 'seconds' })),
      /** semantic only: the cosine similarity a match needs; default 0.95 (DEFAULT_SEMANTIC_THRESHOLD) */
      similarity_threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
      /** semantic only: the provider and model that embed the final user turn */
      embedding: Type.Optional(embedding),
    },
    CLOSED,
  );

  const config = Type.Recursive((This) => Type.Object(withCloud(targetFields(This, cache), cloud), CLOSED), {
    $id: 'GatewayConfig',
    title: 'Gateway routing config',
  });
  return { config, cache, embedding, cloudFields };
}

type ConfigGrammar = ReturnType<typeof createConfigGrammar>;

/** The config as written by the client (cache may be a bare mode string; cloud fields are not typed). */
export type ConfigInput = Static<ConfigGrammar['config']>;
export type Strategy = Static<typeof StrategySchema>;
export type StrategyMode = Strategy['mode'];
export type RetryConfig = Static<typeof RetrySchema>;
type CacheInput = Static<ConfigGrammar['cache']>;

/** A validated embedding target: its cloud fields gathered in `cloud`. */
export interface EmbeddingTargetConfig extends Static<ConfigGrammar['embedding']> {
  cloud?: CloudValues;
}

export interface CacheConfig extends Omit<CacheInput, 'embedding'> {
  embedding?: EmbeddingTargetConfig;
}

/**
 * A validated config: `cache` is always an object, every target is itself a Config, and the cloud fields are
 * gathered in `cloud` (absent when the node sets none).
 */
export interface Config extends Omit<ConfigInput, 'cache' | 'targets'> {
  cache?: CacheConfig;
  targets?: Config[];
  cloud?: CloudValues;
}
