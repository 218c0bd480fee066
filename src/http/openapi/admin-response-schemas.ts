/**
 * Answers of the API keys, audit logs, configs, guardrails and organisation groups, as the views in
 * src/domain/* and the routes build them. Objects stay open: a field added to a view does not break a client.
 */
import { Type } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, NullableUuid, Timestamp, Uuid } from './common-schemas.ts';

export const ApiKeySchema = Type.Object(
  {
    object: Type.Literal('api-key'),
    id: Uuid,
    key: Type.String({ description: 'masked: the secret is shown once, when the key is created or rotated' }),
    name: Type.String(),
    description: NullableString,
    type: Type.String({ description: '`<type>-<sub-type>`, e.g. workspace-service' }),
    organisation_id: Uuid,
    workspace_id: NullableUuid,
    user_id: NullableUuid,
    status: Type.String(),
    creation_mode: Type.String(),
    rate_limits: Type.Array(Type.Object({})),
    usage_limits: Type.Union([Type.Object({}), Type.Null()]),
    reset_usage: Type.Integer(),
    scopes: Type.Array(Type.String()),
    defaults: Type.Union([Type.Object({}), Type.Null()]),
    alert_emails: Type.Array(Type.String()),
    rotation_policy: Type.Union([Type.Object({}), Type.Null()]),
    expires_at: NullableTimestamp,
    key_transition_expires_at: NullableTimestamp,
    last_used_at: NullableTimestamp,
    created_at: Timestamp,
    last_updated_at: Timestamp,
  },
  { description: 'An API key (reference: ApiKeyObject).' },
);

export const ApiKeyCreatedSchema = Type.Object({ id: Uuid, key: Type.String({ description: 'the secret, shown this once' }), object: Type.Literal('api-key') });

export const ApiKeyRotatedSchema = Type.Object({
  id: Uuid,
  key: Type.String({ description: 'the new secret, shown this once' }),
  key_transition_expires_at: Timestamp,
});

export const AuditLogRecordSchema = Type.Object({
  id: Type.String(),
  timestamp: Timestamp,
  method: Type.String(),
  uri: Type.String(),
  request_id: Type.String(),
  request_body: NullableString,
  query_params: NullableString,
  request_headers: NullableString,
  user_id: NullableString,
  api_key_id: NullableString,
  user_type: Type.Union([Type.Literal('user'), Type.Literal('api_key')]),
  organisation_id: Uuid,
  workspace_id: NullableString,
  response_status_code: Type.Integer(),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('denied'), Type.Literal('failed')]),
  resource_type: Type.String(),
  resource_id: NullableString,
  action: Type.String(),
  client_ip: NullableString,
  country: Type.Null(),
});

const configSummary = {
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  is_default: Type.Integer({ minimum: 0, maximum: 1 }),
  status: Type.String(),
  owner_id: NullableString,
  updated_by: NullableString,
  created_at: Timestamp,
  last_updated_at: Timestamp,
};

export const ConfigSummarySchema = Type.Object(configSummary);

export const ConfigDetailsSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ ...configSummary, version_id: Uuid, config: Type.Object({}, { description: 'the routing config, secrets masked' }) }),
});

export const ConfigVersionSchema = Type.Object({
  ...configSummary,
  config: Type.String({ description: 'the routing config as a JSON string, secrets masked' }),
  format: Type.Literal('json'),
  type: Type.Union([Type.Literal('ORG_CONFIG'), Type.Literal('WORKSPACE_CONFIG')]),
  version_id: Uuid,
  object: Type.Literal('config'),
});

export const ConfigCreatedSchema = Type.Object({ success: Type.Literal(true), data: Type.Object({ id: Uuid, slug: Type.String(), version_id: Uuid }) });

export const ConfigUpdatedSchema = Type.Object({ success: Type.Literal(true), data: Type.Object({ version_id: Uuid }) });

const guardrailSummary = {
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  status: Type.String(),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  owner_id: NullableString,
  updated_by: NullableString,
};

export const GuardrailSummarySchema = Type.Object(guardrailSummary);

export const GuardrailDetailsSchema = Type.Object({ ...guardrailSummary, checks: Type.Array(Type.Object({})), actions: Type.Object({}) });

export const GuardrailReferenceSchema = Type.Object(
  { id: Uuid, slug: Type.String(), version_id: Type.Null() },
  { description: 'guardrails are not versioned: version_id is always null' },
);

export const OrganisationSchema = Type.Object({
  object: Type.Literal('organisation'),
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  settings: Type.Object({ jwt: Type.Union([Type.Object({ jwks_url: Type.String(), issuer: Type.Optional(Type.String()), audience: Type.Optional(Type.String()) }), Type.Null()]) }),
  created_at: Timestamp,
  last_updated_at: Timestamp,
});
