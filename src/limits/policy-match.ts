/**
 * Which requests a limits policy counts, and under which value key. Shared by rate limits (§3.19) and usage limits
 * (§3.18): both name the requests they apply to with `conditions` and count per value of their `group_by`.
 *
 * Vocabulary (api-surface §0.7 Condition and GroupBy, plus `provider`):
 *   api_key          the calling API key's id (a JWT caller has none)
 *   organisation_id  the caller's organisation id
 *   workspace_id     the workspace the request is attributed to (stored as its id; the admin API accepts a slug)
 *   provider         the provider the attempt goes to: the provider's name (`openai`) or a saved provider's slug
 *                    (`@my-openai`, or `my-openai`); as a group_by value, `@slug` when there is one, else the name
 *   metadata.<name>  a field of the request's `x-gateway-metadata` (`metadata._user`); strings as sent, numbers and
 *                    booleans as text; an object or array has no value
 *
 * Conditions: every key named must hold; several conditions on the same key are alternatives (any one of its
 * values). group_by: the value key is `key:value` of each entry in order, joined by `,` (`metadata._user:ada`).
 * A request without a value for a group_by key is not counted by that policy: it has no entity to count under
 * (add a condition on the key to make the intent explicit).
 */

/** `metadata.` followed by the field's name; the other keys are fixed words. */
export const MATCH_KEYS = ['api_key', 'organisation_id', 'workspace_id', 'provider'] as const;
export const METADATA_PREFIX = 'metadata.';
/** As a JSON-schema `pattern`: one of MATCH_KEYS, or `metadata.<name>` (1 to 128 characters of name). */
export const MATCH_KEY_PATTERN = '^(?:api_key|organisation_id|workspace_id|provider|metadata\\.[^\\u0000]{1,128})$';

const MATCH_KEY = new RegExp(MATCH_KEY_PATTERN);

export interface PolicyCondition {
  key: string;
  value: string;
}

export interface PolicyGroupBy {
  key: string;
}

/** What is known of a request when a policy is matched against it. */
export interface RequestFacts {
  organisationId: string;
  workspaceId: string;
  /** undefined for a JWT caller */
  apiKeyId: string | undefined;
  /** the provider's name, as the registry knows it (`openai`); undefined before the target is resolved */
  provider: string | undefined;
  /** a saved provider's slug, without `@` */
  providerSlug: string | undefined;
  /** the request's metadata (`x-gateway-metadata`) */
  metadata: Readonly<Record<string, unknown>>;
}

export function isMatchKey(key: string): boolean {
  return MATCH_KEY.test(key);
}

function metadataValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The request's value for one key, as group_by renders it. */
export function factValue(key: string, facts: RequestFacts): string | undefined {
  switch (key) {
    case 'api_key':
      return facts.apiKeyId;
    case 'organisation_id':
      return facts.organisationId;
    case 'workspace_id':
      return facts.workspaceId;
    case 'provider':
      return facts.providerSlug !== undefined ? `@${facts.providerSlug}` : facts.provider;
    default:
      if (!key.startsWith(METADATA_PREFIX)) return undefined;
      return metadataValue(facts.metadata[key.slice(METADATA_PREFIX.length)]);
  }
}

/** Does one condition's value hold for the request? Ids compare case-insensitively (a UUID in either case). */
function holds(key: string, expected: string, facts: RequestFacts): boolean {
  if (key === 'provider') {
    if (expected.startsWith('@')) return facts.providerSlug !== undefined && expected.slice(1) === facts.providerSlug;
    return expected === facts.provider || expected === facts.providerSlug;
  }
  const actual = factValue(key, facts);
  if (actual === undefined) return false;
  if (key.startsWith(METADATA_PREFIX)) return actual === expected;
  return actual.toLowerCase() === expected.toLowerCase();
}

/** Conditions grouped by key: AND across keys, OR within one key. */
function groupConditions(conditions: readonly PolicyCondition[]): Array<[string, string[]]> {
  const byKey = new Map<string, string[]>();
  for (const { key, value } of conditions) {
    const values = byKey.get(key);
    if (values) values.push(value);
    else byKey.set(key, [value]);
  }
  return [...byKey];
}

export function conditionsHold(conditions: readonly PolicyCondition[], facts: RequestFacts): boolean {
  return groupConditions(conditions).every(([key, values]) => values.some((value) => holds(key, value, facts)));
}

/** `metadata._user:ada` (entries joined by `,`); undefined when the request has no value for one of the keys. */
export function valueKeyOf(groupBy: readonly PolicyGroupBy[], facts: RequestFacts): string | undefined {
  let rendered = '';
  for (const { key } of groupBy) {
    const value = factValue(key, facts);
    if (value === undefined) return undefined;
    rendered += `${rendered === '' ? '' : ','}${key}:${value}`;
  }
  return rendered;
}

export interface MatchablePolicy {
  /** null: every workspace of the organisation; otherwise only requests attributed to this workspace */
  workspaceId: string | null;
  conditions: readonly PolicyCondition[];
  groupBy: readonly PolicyGroupBy[];
}

/** The value key the request counts under, or undefined when the policy does not apply to it. */
export type PolicyMatcher = (facts: RequestFacts) => string | undefined;

/**
 * Prepares a policy for the hot path (its conditions grouped once): the returned function answers, for a request,
 * whether the policy applies and under which value key it counts.
 */
export function compilePolicyMatch(policy: MatchablePolicy): PolicyMatcher {
  const grouped = groupConditions(policy.conditions);
  const workspaceId = policy.workspaceId?.toLowerCase() ?? null;
  const groupBy = [...policy.groupBy];
  return (facts) => {
    if (workspaceId !== null && facts.workspaceId.toLowerCase() !== workspaceId) return undefined;
    for (const [key, values] of grouped) if (!values.some((value) => holds(key, value, facts))) return undefined;
    return valueKeyOf(groupBy, facts);
  };
}

/** True when the policy's conditions or group_by read the provider: it can only be matched once the target is known. */
export function readsProvider(policy: Pick<MatchablePolicy, 'conditions' | 'groupBy'>): boolean {
  return policy.conditions.some(({ key }) => key === 'provider') || policy.groupBy.some(({ key }) => key === 'provider');
}
