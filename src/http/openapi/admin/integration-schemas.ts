/**
 * The components of the Integrations group: its request bodies (the validating TypeBox constants themselves) and
 * its answers, as domain/integrations/views.ts builds them. components.ts spreads them into the document. Answer
 * objects stay open: a field added to a view does not break a client.
 */
import { Type } from '@sinclair/typebox';
import {
  CreateIntegrationSchema,
  UpdateIntegrationSchema,
  UpdateModelsSchema,
  UpdateWorkspacesSchema,
} from '../../admin/integrations/schemas.ts';
import { NullableString, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';

const NullableObject = Type.Union([Type.Object({}), Type.Null()]);
const NullableArray = Type.Union([Type.Array(Type.Object({})), Type.Null()]);

const summary = {
  id: Uuid,
  organisation_id: Uuid,
  workspace_id: Type.Union([Uuid, Type.Null()], { description: 'set: an integration of that workspace only' }),
  ai_provider_id: Type.String({ description: 'the provider, as x-gateway-provider names it' }),
  name: Type.String(),
  slug: Type.String(),
  description: NullableString,
  status: Type.Literal('active'),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  object: Type.Literal('integration'),
};

const IntegrationSummarySchema = Type.Object(summary, { description: 'An integration (reference: IntegrationList).' });

const IntegrationDetailsSchema = Type.Object(
  {
    ...summary,
    masked_key: Type.Union([Type.String({ description: 'the key masked: its first and last four characters at most' }), Type.Null()]),
    configurations: Type.Object({}, { description: 'the provider settings; every secret shown as ********' }),
    global_workspace_access_settings: NullableObject,
    allow_all_models: Type.Boolean(),
    workspace_count: Type.Integer({ minimum: 0 }),
    secret_mappings: Type.Array(Type.Object({})),
    pricing_adjustments: NullableObject,
  },
  { description: 'An integration with its settings, credentials masked (reference: IntegrationDetailResponse).' },
);

const IntegrationModelSchema = Type.Object({
  slug: Type.String(),
  name: NullableString,
  enabled: Type.Boolean(),
  is_custom: Type.Union([Type.Boolean(), Type.Null()]),
  is_finetune: Type.Union([Type.Boolean(), Type.Null()]),
  base_model_slug: NullableString,
  configurations: NullableObject,
  pricing_config: NullableObject,
});

const IntegrationWorkspaceSchema = Type.Object({ id: NullableUuid, enabled: Type.Boolean(), usage_limits: NullableArray, rate_limits: NullableArray });

export const INTEGRATION_COMPONENTS = {
  CreateIntegrationRequest: CreateIntegrationSchema,
  UpdateIntegrationRequest: UpdateIntegrationSchema,
  UpdateIntegrationModelsRequest: UpdateModelsSchema,
  UpdateIntegrationWorkspacesRequest: UpdateWorkspacesSchema,
  IntegrationSummary: IntegrationSummarySchema,
  IntegrationDetails: IntegrationDetailsSchema,
  IntegrationReference: Type.Object({ id: Uuid, slug: Type.String() }),
  IntegrationModelList: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    models: Type.Array(IntegrationModelSchema),
    allow_all_models: Type.Boolean({ description: 'true: every model of the provider may be called, not only those listed' }),
  }),
  IntegrationWorkspaceList: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    workspaces: Type.Array(IntegrationWorkspaceSchema),
    global_workspace_access: NullableObject,
  }),
} as const;
