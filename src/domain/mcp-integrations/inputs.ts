/**
 * What the MCP integration use cases take, with the admin API's field names (api-surface §3.15; the transport's
 * schemas in src/http/admin/mcp-integrations/schemas.ts are checked against these types at compile time).
 */
import type { SecretMappingInput } from '../integrations/inputs.ts';

export type McpAuthType = 'oauth_auto' | 'headers' | 'none';
export type McpTransport = 'http' | 'sse';

export interface McpConfigurationsInput {
  /** header name -> value, sent to the upstream on every request; sealed at rest, masked in every read */
  custom_headers?: Record<string, unknown>;
  passthrough_header?: Record<string, unknown>;
}

export interface CreateMcpIntegrationInput {
  organisation_id?: string;
  /** a workspace id or slug: an integration of that workspace only; absent: organisation-wide (admin keys) */
  workspace_id?: string;
  slug?: string;
  name: string;
  description?: string | null;
  configurations?: McpConfigurationsInput;
  url: string;
  auth_type: McpAuthType;
  transport: McpTransport;
  secret_mappings?: readonly SecretMappingInput[];
}

export interface UpdateMcpIntegrationInput {
  name?: string;
  description?: string | null;
  configurations?: McpConfigurationsInput;
  url?: string;
  auth_type?: McpAuthType;
  transport?: McpTransport;
  secret_mappings?: readonly SecretMappingInput[];
}

export interface ListMcpIntegrationsInput {
  organisation_id?: string | undefined;
  workspace?: string | undefined;
  type?: 'workspace' | 'organisation' | 'all' | undefined;
  search?: string | undefined;
}

export interface McpWorkspaceAccessInput {
  /** a workspace id or slug */
  id: string;
  enabled: boolean;
}

export interface UpdateMcpWorkspacesInput {
  workspaces: readonly McpWorkspaceAccessInput[];
  global_workspace_access?: { enabled: boolean } | null;
  override_existing_workspace_access?: boolean;
}

export type McpCapabilityKind = 'tool' | 'prompt' | 'resource' | 'resource_template';

export interface CapabilitySwitchInput {
  name: string;
  type: McpCapabilityKind;
  enabled: boolean;
}

export interface UpdateCapabilitiesInput {
  capabilities: readonly CapabilitySwitchInput[];
}
