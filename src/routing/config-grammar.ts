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
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../http/schemas/common.ts';

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
