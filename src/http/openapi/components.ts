/**
 * components.schemas: every request body under the name of the TypeBox constant that validates it (the same
 * object, so the document cannot drift from the validation), the answers, and the error body. Paths point at them
 * with `ref(name)`, which only takes a name that is here.
 */
import { Type } from '@sinclair/typebox';
import { AI_SERVICES, CatalogPricingSchema } from '../../catalog/catalog.ts';
import { ConfigSchema } from '../../routing/config-schema.ts';
import { CreateApiKeySchema, RotateApiKeySchema, UpdateApiKeySchema } from '../admin/api-keys/schemas.ts';
import { CreateConfigSchema, UpdateConfigSchema } from '../admin/configs/schemas.ts';
import { CreateGuardrailSchema, UpdateGuardrailSchema } from '../admin/guardrails/schemas.ts';
import { CreateRateLimitsPolicySchema, UpdateRateLimitsPolicySchema } from '../admin/rate-limits-policies/schemas.ts';
import { RateLimitsPolicyCreatedSchema, RateLimitsPolicySchema } from './admin/rate-limits-policies-schemas.ts';
import { SecretReferenceCreatedSchema, SecretReferenceDetailSchema, SecretReferenceSummarySchema } from '../admin/secret-references/answer-schemas.ts';
import { CreateSecretReferenceSchema, UpdateSecretReferenceSchema } from '../admin/secret-references/schemas.ts';
import { INTEGRATION_COMPONENTS } from './admin/integration-schemas.ts';
import { PROVIDER_COMPONENTS } from './admin/provider-schemas.ts';
import { MODEL_PRICING_COMPONENTS } from './admin/model-pricing-schemas.ts';
import { PROMPT_COMPONENTS } from './admin/prompt-schemas.ts';
import { MCP_COMPONENTS } from './admin/mcp-schemas.ts';
import { CreateUsageLimitsPolicySchema, ResetUsageLimitsEntitySchema, UpdateUsageLimitsPolicySchema } from '../admin/usage-limits-policies/schemas.ts';
import * as usageLimits from './admin/usage-limits-policies-schemas.ts';
import { AcceptInviteSchema, CreateInviteSchema, UpdateUserSchema } from '../admin/users/schemas.ts';
import { AddMembersSchema, CreateWorkspaceSchema, UpdateMemberSchema, UpdateWorkspaceSchema } from '../admin/workspaces/schemas.ts';
import { ChatCompletionRequestSchema } from '../../core/schemas/chat-completions.ts';
import { CompletionRequestSchema } from '../../core/schemas/completions.ts';
import { EmbeddingRequestSchema } from '../../core/schemas/embeddings.ts';
import { RerankRequestSchema } from '../../core/schemas/rerank.ts';
import { CountTokensRequestSchema, MessagesRequestSchema } from '../routes/messages-schema.ts';
import * as admin from './admin-response-schemas.ts';
import { EmptyObjectSchema, ErrorResponseSchema, HealthSchema, ReadinessSchema, listOf } from './common-schemas.ts';
import { UpdateOrganisationSchema } from '../admin/organisation/schemas.ts';
import * as people from './people-response-schemas.ts';
import type { JsonSchema } from './types.ts';

/** One entry of the integrated model catalog (GET /models without a provider signal). */
const ModelSchema = Type.Object({
  id: Type.String({ description: 'the model id as the provider names it' }),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  provider: Type.String({ description: 'the provider, as x-gateway-provider names it' }),
  ai_service: Type.Union(AI_SERVICES.map((service) => Type.Literal(service))),
  slug: Type.String(),
  canonical_slug: Type.String({ description: '`<provider>/<id>`: unique across the catalog' }),
  context_window: Type.Union([Type.Integer(), Type.Null()]),
  max_output_tokens: Type.Union([Type.Integer(), Type.Null()]),
  pricing: CatalogPricingSchema,
});

const SCHEMAS = {
  // requests: the validating constants themselves
  GatewayConfig: ConfigSchema,
  ChatCompletionRequest: ChatCompletionRequestSchema,
  CompletionRequest: CompletionRequestSchema,
  EmbeddingRequest: EmbeddingRequestSchema,
  RerankRequest: RerankRequestSchema,
  MessagesRequest: MessagesRequestSchema,
  CountTokensRequest: CountTokensRequestSchema,
  CreateApiKeyRequest: CreateApiKeySchema,
  UpdateApiKeyRequest: UpdateApiKeySchema,
  RotateApiKeyRequest: RotateApiKeySchema,
  CreateConfigRequest: CreateConfigSchema,
  UpdateConfigRequest: UpdateConfigSchema,
  CreateGuardrailRequest: CreateGuardrailSchema,
  UpdateGuardrailRequest: UpdateGuardrailSchema,
  CreateRateLimitsPolicyRequest: CreateRateLimitsPolicySchema,
  UpdateRateLimitsPolicyRequest: UpdateRateLimitsPolicySchema,
  CreateSecretReferenceRequest: CreateSecretReferenceSchema,
  UpdateSecretReferenceRequest: UpdateSecretReferenceSchema,
  CreateUsageLimitsPolicyRequest: CreateUsageLimitsPolicySchema,
  UpdateUsageLimitsPolicyRequest: UpdateUsageLimitsPolicySchema,
  ResetUsageLimitsEntityRequest: ResetUsageLimitsEntitySchema,
  UpdateOrganisationRequest: UpdateOrganisationSchema,
  UpdateUserRequest: UpdateUserSchema,
  CreateInviteRequest: CreateInviteSchema,
  AcceptInviteRequest: AcceptInviteSchema,
  CreateWorkspaceRequest: CreateWorkspaceSchema,
  UpdateWorkspaceRequest: UpdateWorkspaceSchema,
  AddWorkspaceMembersRequest: AddMembersSchema,
  UpdateWorkspaceMemberRequest: UpdateMemberSchema,
  // answers
  ErrorResponse: ErrorResponseSchema,
  EmptyObject: EmptyObjectSchema,
  Health: HealthSchema,
  Readiness: ReadinessSchema,
  Model: ModelSchema,
  ModelList: listOf(Type.Unsafe({ $ref: '#/components/schemas/Model' }), 'the integrated model catalog, filtered, sorted and paged'),
  ApiKey: admin.ApiKeySchema,
  ApiKeyCreated: admin.ApiKeyCreatedSchema,
  ApiKeyRotated: admin.ApiKeyRotatedSchema,
  AuditLogRecord: admin.AuditLogRecordSchema,
  ConfigSummary: admin.ConfigSummarySchema,
  ConfigDetails: admin.ConfigDetailsSchema,
  ConfigVersion: admin.ConfigVersionSchema,
  ConfigCreated: admin.ConfigCreatedSchema,
  ConfigUpdated: admin.ConfigUpdatedSchema,
  GuardrailSummary: admin.GuardrailSummarySchema,
  GuardrailDetails: admin.GuardrailDetailsSchema,
  GuardrailReference: admin.GuardrailReferenceSchema,
  RateLimitsPolicy: RateLimitsPolicySchema,
  RateLimitsPolicyCreated: RateLimitsPolicyCreatedSchema,
  SecretReferenceSummary: SecretReferenceSummarySchema,
  SecretReferenceDetail: SecretReferenceDetailSchema,
  SecretReferenceCreated: SecretReferenceCreatedSchema,
  UsageLimitsPolicy: usageLimits.UsageLimitsPolicySchema,
  UsageLimitsPolicyCreated: usageLimits.UsageLimitsPolicyCreatedSchema,
  UsageLimitsEntity: usageLimits.UsageLimitsEntitySchema,
  Organisation: admin.OrganisationSchema,
  User: people.UserSchema,
  AcceptedInvite: people.AcceptedInviteSchema,
  Invite: people.InviteSchema,
  InviteCreated: people.InviteCreatedSchema,
  InviteResent: people.InviteResentSchema,
  Workspace: people.WorkspaceSchema,
  WorkspaceWithUsers: people.WorkspaceWithUsersSchema,
  WorkspaceMember: people.WorkspaceMemberSchema,
  ...INTEGRATION_COMPONENTS,
  ...PROVIDER_COMPONENTS,
  ...MODEL_PRICING_COMPONENTS,
  ...PROMPT_COMPONENTS,
  ...MCP_COMPONENTS,
} as const;

export type SchemaName = keyof typeof SCHEMAS;

export function ref(name: SchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** A list answer whose items are the named component. */
export function listRef(name: SchemaName, description: string): JsonSchema {
  return listOf(Type.Unsafe(ref(name)), description);
}

/**
 * A plain-JSON copy (TypeBox's symbol keys dropped) in which a recursive schema's self-reference by `$id`
 * (`Type.Recursive` writes `$id: 'GatewayConfig'` and `$ref: 'GatewayConfig'`) becomes a reference to its
 * component, so every `$ref` of the document is a JSON pointer into it.
 */
export function asComponent(name: string, schema: unknown): JsonSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const selfId = typeof copy.$id === 'string' ? copy.$id : undefined;
  delete copy.$id;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== 'object' || node === null) return node;
    const entries = Object.entries(node).map(([key, value]) => {
      if (key === '$ref' && value === selfId) return [key, `#/components/schemas/${name}`];
      return [key, rewrite(value)];
    });
    return Object.fromEntries(entries);
  };
  return rewrite(copy) as JsonSchema;
}

export function buildSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, asComponent(name, schema)]));
}
