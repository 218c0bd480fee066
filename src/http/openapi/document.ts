/**
 * The OpenAPI 3.1 document of the whole API the app registers: the inference routes, the pass-through wildcards,
 * the admin (control-plane) routes under the `/v1` server, and the operations routes under the root (each of those
 * paths names its own server). test/openapi.test.ts holds it to the routes actually registered, both ways.
 */
import { analyticsPaths } from './admin/analytics.ts';
import { analyticsComponents } from './admin/analytics-schemas.ts';
import { apiKeyPaths } from './admin/api-keys.ts';
import { auditLogPaths } from './admin/audit-logs.ts';
import { configPaths } from './admin/configs.ts';
import { feedbackPaths } from './admin/feedback.ts';
import { guardrailPaths } from './admin/guardrails.ts';
import { mcpIntegrationPaths } from './admin/mcp-integrations.ts';
import { mcpServerPaths } from './admin/mcp-servers.ts';
import { collectionPaths } from './admin/prompt-collections.ts';
import { labelPaths } from './admin/labels.ts';
import { promptPartialPaths } from './admin/prompt-partials.ts';
import { promptLibraryComponents } from './admin/prompt-library-schemas.ts';
import { promptPaths } from './admin/prompts.ts';
import { promptRunPaths } from './prompt-paths.ts';
import { integrationPaths } from './admin/integrations.ts';
import { logPaths } from './admin/logs.ts';
import { logComponents } from './admin/logs-schemas.ts';
import { modelPricingPaths } from './admin/model-pricing.ts';
import { organisationPaths } from './admin/organisation.ts';
import { providerPaths } from './admin/providers.ts';
import { rateLimitsPolicyPaths } from './admin/rate-limits-policies.ts';
import { scimComponents, scimPaths } from './admin/scim.ts';
import { secretReferencePaths } from './admin/secret-references.ts';
import { usageLimitsPolicyPaths } from './admin/usage-limits-policies.ts';
import { userPaths } from './admin/users.ts';
import { virtualKeyPaths } from './admin/virtual-keys.ts';
import { workspacePaths } from './admin/workspaces.ts';
import { buildSchemas } from './components.ts';
import { consolePaths } from './console-paths.ts';
import { inferencePaths } from './inference-paths.ts';
import { filesBatchesComponents, filesBatchesPaths } from './files-batches-paths.ts';
import { operationsPaths } from './operations-paths.ts';
import { publicPricingPaths } from './pricing-paths.ts';
import { realtimePaths } from './realtime-paths.ts';
import { GATEWAY_HEADER_COMPONENTS } from './parameters.ts';
import { INFERENCE_ERROR_COMPONENTS, INFERENCE_HEADER_COMPONENTS } from './responses.ts';
import type { Header, JsonSchema, Parameter, Paths, Response, Server } from './types.ts';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Server[];
  security: Array<Record<string, string[]>>;
  tags: Array<{ name: string; description: string }>;
  paths: Paths;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, JsonSchema>;
  };
}

const DESCRIPTION = [
  'One OpenAI-compatible API to many model providers, and its control plane.',
  'Every `/v1` route needs a gateway key (or a JWT) in `x-gateway-api-key`, except where an operation says `security: []`.',
  'Every GET route answers HEAD too. Errors the gateway raises itself are `ErrorResponse`; a provider\'s errors keep its status and body.',
  'Paths marked `x-gateway-wildcard-parameter` match any number of segments in that parameter.',
].join(' ');

const TAGS = [
  ['inference', 'OpenAI-compatible routes, forwarded to the selected provider'],
  ['operations', 'liveness, readiness, metrics and this document, outside /v1'],
  ['console', 'the admin console: a single-page app served by the gateway, outside /v1'],
  ['analytics', 'graphs, summaries and groups over the request log (hourly rollups where they can answer)'],
  ['api-keys', 'gateway API keys'],
  ['audit-logs', 'the append-only record of every admin change'],
  ['configs', 'saved routing configs'],
  ['feedback', 'feedback on traces (workspace keys)'],
  ['guardrails', 'saved guardrails'],
  ['mcp-integrations', 'remote MCP servers: URL, transport and sealed credentials, the workspaces that may use them, their capabilities'],
  ['mcp-servers', 'MCP integrations used in a workspace (allow-list, user access) and the MCP gateway endpoint /v1/mcp/{mcpServerId}'],
  ['collections', 'folders of prompts, one tree per workspace'],
  ['labels', 'names (production, staging ...) that point at one version of a prompt'],
  ['prompt-partials', 'reusable template snippets with versions, included in prompts as `{{> slug}}`'],
  ['prompts', 'saved prompt templates with versions and labels, rendered and run on the data plane'],
  ['logs', 'the request log: list, read, and insert custom logs'],
  ['logs-export', 'log export jobs and their signed downloads'],
  ['integrations', 'provider credentials and settings (the vault), their models and the workspaces that may use them'],
  ['model-pricing', 'model prices: the shipped catalog\'s (public) and custom ones per workspace or organisation'],
  ['organisation', 'organisation settings'],
  ['providers', 'workspace handles onto an integration, used as `@slug`'],
  ['rate-limits-policies', 'request and token rate limits, per value of their group_by'],
  ['secret-references', 'named secrets held by a secret manager, sealed in the database, or read from the environment'],
  ['users', 'the organisation\'s users'],
  ['virtual-keys', 'the legacy virtual keys: providers that hold their own key'],
  ['user-invites', 'invitations to join the organisation'],
  ['workspaces', 'workspaces'],
  ['usage-limits-policies', 'budgets of tokens or cost, per value of their group_by'],
  ['workspace-members', 'who belongs to a workspace, with which role'],
] as const;

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'AI gateway', version: '2.0.0', description: DESCRIPTION },
    servers: [{ url: '/v1', description: 'the API\'s base URL' }],
    security: [{ gatewayApiKey: [] }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths: {
      ...operationsPaths(),
      ...consolePaths(),
      ...publicPricingPaths(),
      ...inferencePaths(),
      ...filesBatchesPaths(),
      ...realtimePaths(),
      ...analyticsPaths(),
      ...apiKeyPaths(),
      ...auditLogPaths(),
      ...configPaths(),
      ...feedbackPaths(),
      ...guardrailPaths(),
      ...mcpIntegrationPaths(),
      ...mcpServerPaths(),
      ...collectionPaths(),
      ...labelPaths(),
      ...promptPartialPaths(),
      ...promptPaths(),
      ...promptRunPaths(),
      ...integrationPaths(),
      ...logPaths(),
      ...modelPricingPaths(),
      ...organisationPaths(),
      ...providerPaths(),
      ...rateLimitsPolicyPaths(),
      ...scimPaths(),
      ...secretReferencePaths(),
      ...userPaths(),
      ...virtualKeyPaths(),
      ...workspacePaths(),
      ...usageLimitsPolicyPaths(),
    },
    components: {
      schemas: { ...buildSchemas(), ...analyticsComponents(), ...logComponents(), ...scimComponents(), ...promptLibraryComponents(), ...filesBatchesComponents() },
      parameters: GATEWAY_HEADER_COMPONENTS,
      headers: INFERENCE_HEADER_COMPONENTS,
      responses: INFERENCE_ERROR_COMPONENTS,
      securitySchemes: {
        gatewayApiKey: { type: 'apiKey', in: 'header', name: 'x-gateway-api-key', description: 'a gateway API key, or a JWT the organisation\'s JWKS verifies' },
      },
    },
  };
}
