/**
 * The components of the Providers and Virtual keys groups: their request bodies (the validating TypeBox constants
 * themselves) and their answers, as domain/providers/views.ts and domain/virtual-keys/views.ts build them.
 * components.ts spreads them into the document. Answer objects stay open: a field added to a view does not break a
 * client.
 */
import { Type } from '@sinclair/typebox';
import { CreateProviderSchema, ProviderRateLimitSchema, UpdateProviderSchema } from '../../admin/providers/schemas.ts';
import { CreateVirtualKeySchema, SecretMappingSchema, UpdateVirtualKeySchema } from '../../admin/virtual-keys/schemas.ts';
import { UsageLimitsSchema } from '../../admin/api-keys/schemas.ts';
import { NullableString, NullableTimestamp, Timestamp, Uuid } from '../common-schemas.ts';

const fields = {
  id: Uuid,
  name: Type.String(),
  slug: Type.String({ description: 'what `@slug` and x-gateway-virtual-key name' }),
  workspace_id: Uuid,
  note: NullableString,
  status: Type.Union([Type.Literal('active'), Type.Literal('exhausted'), Type.Literal('expired')], {
    description: '`expired` once expires_at has passed, `exhausted` while its usage limit is used up',
  }),
  usage_limits: Type.Union([UsageLimitsSchema, Type.Null()]),
  reset_usage: Type.Null({ description: 'the usage count itself is the usage limits\' (their entities)' }),
  usage_reset_at: NullableTimestamp,
  rate_limits: Type.Union([Type.Array(ProviderRateLimitSchema), Type.Null()]),
  expires_at: NullableTimestamp,
  created_at: Timestamp,
  last_updated_at: Timestamp,
};

export const PROVIDER_COMPONENTS = {
  CreateProviderRequest: CreateProviderSchema,
  UpdateProviderRequest: UpdateProviderSchema,
  Provider: Type.Object({
    ...fields,
    integration_id: Type.String({ description: 'the integration\'s slug' }),
    object: Type.Literal('provider'),
  }),
  ProviderReference: Type.Object({ id: Uuid, slug: Type.String() }),
  CreateVirtualKeyRequest: CreateVirtualKeySchema,
  UpdateVirtualKeyRequest: UpdateVirtualKeySchema,
  VirtualKey: Type.Object({
    ...fields,
    provider: Type.Union([Type.String(), Type.Null()], { description: 'the provider, as x-gateway-provider names it' }),
    masked_key: Type.Union([Type.String(), Type.Null()], { description: 'enough to recognise the key, never enough to use it' }),
    model_config: Type.Object({}, { description: 'the legacy cloud fields: apiVersion, resourceName, deploymentName, deploymentConfig' }),
    secret_mappings: Type.Array(SecretMappingSchema),
    object: Type.Literal('virtual-key'),
  }),
  VirtualKeyCreated: Type.Object({ success: Type.Literal(true), data: Type.Object({ id: Uuid, slug: Type.String() }) }),
} as const;
