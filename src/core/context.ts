/** The typed request context: every x-gateway-* header parsed once, read everywhere after. */
export type OrgRole = 'owner' | 'admin' | 'member';
export type WorkspaceRole = 'admin' | 'manager' | 'member';

/** Who is calling: an API key, or a user presenting a JWT. */
export interface Principal {
  kind: 'api_key' | 'jwt';
  /** the API key's id; for a JWT, the token's `jti` or subject */
  keyId: string;
  /** SHA-256 of the presented secret (cache invalidation) */
  keyHash: string;
  /** 'organisation' (admin key, or a JWT without a workspace) or 'workspace' */
  keyType: 'organisation' | 'workspace';
  /** 'service' or 'user' (a user key acts with its user's roles; JWTs are always 'user') */
  subType: 'service' | 'user';
  organisationId: string;
  /** the workspace inference is attributed to: the key's own, or the default workspace for admin keys */
  workspaceId: string;
  scopes: readonly string[];
  /** organisation role the caller acts with (admin keys: their stored role; users: their org role) */
  orgRole: OrgRole | null;
  /** the caller's role in `workspaceId` when it is a user (user keys, JWTs) */
  workspaceRole: WorkspaceRole | null;
  userId: string | null;
  expiresAt: number | null;
  /** an API key's `defaults.config_id`: the saved config its requests use when they name none */
  defaultConfig?: { id: string; allowOverride: boolean } | undefined;
  /** an API key's inline `rate_limits` as stored (§0.7 RateLimits); the rate-limits step reads them */
  rateLimits?: readonly unknown[] | undefined;
}

export interface TraceContext {
  traceId: string;
  spanId: string | undefined;
  parentSpanId: string | undefined;
  spanName: string | undefined;
}

export interface GatewayHeaders {
  trace: TraceContext;
  metadata: Record<string, unknown>;
  /** provider name; `@slug` is kept in providerSlug instead */
  provider: string | undefined;
  /** `@slug` of x-gateway-provider without the `@`: a saved provider */
  providerSlug: string | undefined;
  /** x-gateway-virtual-key: the legacy name of a saved provider's slug */
  virtualKey: string | undefined;
  /** where providerSlug or virtualKey came from when not from their headers (a config target's field path), for errors */
  savedProviderParam?: string | undefined;
  config: string | undefined;
  customHost: string | undefined;
  /** the provider token from `Authorization: Bearer <token>` */
  providerToken: string | undefined;
  cacheForceRefresh: boolean;
  cacheNamespace: string | undefined;
  requestTimeoutMs: number | undefined;
  fetchIntegratedModels: boolean | undefined;
  /** lower-cased names of client headers forwarded unprocessed to the provider */
  forwardHeaders: readonly string[];
  /** the route's own protocol headers the client sent (anthropic-version, anthropic-beta): forwarded whatever a target's forward_headers says */
  protocolHeaders?: readonly string[];
  /** lower-cased header names masked in logs (request, response, trace) */
  sensitiveHeaders: readonly string[];
  /** x-gateway-<cloud>-* headers keyed by their suffix, e.g. `azure-resource-name` */
  cloud: Readonly<Record<string, string>>;
  /** x-gateway-strict-reference-compliance; undefined means the default (strict) */
  strictReferenceCompliance: boolean | undefined;
}
