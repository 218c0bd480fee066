/** MCP integrations (src/http/admin/mcp-integrations/), addressed by id or slug. */
import { MCP_ID_OR_SLUG_PATTERN } from '../../admin/mcp-integrations/schemas.ts';
import { ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter, UUID_SCHEMA } from '../parameters.ts';
import type { Parameter, Paths } from '../types.ts';
import { adminOperation, NOT_FOUND_OR_HIDDEN } from './operation.ts';

const TAG = 'mcp-integrations';
const ID = pathParameter('mcpIntegrationId', 'the MCP integration\'s id or slug', { type: 'string', pattern: MCP_ID_OR_SLUG_PATTERN });
const CREDENTIALS = '`auth_type: headers` keeps `configurations.custom_headers`, sealed at rest and shown as `********` (send the mask back to keep a value); `oauth_auto` and `transport: sse` are refused. The URL passes the custom-host SSRF rules.';

export const CAPABILITY_PARAMETERS: Parameter[] = [
  queryParameter('page', '1-based page number', { type: 'integer', minimum: 1, default: 1 }),
  queryParameter('page_size', 'entries per page', { type: 'integer', minimum: 1, maximum: 500, default: 100 }),
  queryParameter('type', 'only this kind', { type: 'string', enum: ['tool', 'prompt', 'resource', 'resource_template'] }),
];

export function mcpIntegrationPaths(): Paths {
  return {
    '/mcp-integrations': {
      post: adminOperation({
        operationId: 'McpIntegrations_create', summary: 'Register a remote MCP server', tag: TAG, scope: 'mcp_integrations.create',
        description: `${CREDENTIALS} The upstream is synced (initialize and every list) right after the create.`,
        body: 'CreateMcpIntegrationRequest', answer: { description: 'the new integration', schema: ref('McpReference') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug is taken' },
      }),
      get: adminOperation({
        operationId: 'McpIntegrations_list', summary: 'List MCP integrations', tag: TAG, scope: 'mcp_integrations.list',
        parameters: [
          ...pageParameters({ defaultSize: 100, maxSize: 1000 }),
          queryParameter('organisation_id', 'the caller\'s organisation (another is a 400)', UUID_SCHEMA),
          queryParameter('workspace_id', 'the integrations this workspace may use (id or slug)'),
          queryParameter('type', 'organisation-wide, workspace ones, or all', { type: 'string', enum: ['workspace', 'organisation', 'all'] }),
          queryParameter('search', 'part of the name or slug'),
        ],
        answer: { description: 'the integrations the caller can see', schema: ref('McpList') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/mcp-integrations/{mcpIntegrationId}': {
      get: adminOperation({
        operationId: 'McpIntegrations_retrieve', summary: 'Get an MCP integration', tag: TAG, scope: 'mcp_integrations.read', parameters: [ID],
        answer: { description: 'the integration, header values masked', schema: ref('McpIntegration') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'McpIntegrations_update', summary: 'Update an MCP integration', tag: TAG, scope: 'mcp_integrations.update', parameters: [ID],
        description: `${CREDENTIALS} A new URL or new credentials sync the upstream again.`,
        body: 'UpdateMcpIntegrationRequest', answer: { description: 'updated', schema: ref('EmptyObject') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'McpIntegrations_delete', summary: 'Delete an MCP integration and its MCP servers', tag: TAG, scope: 'mcp_integrations.delete', parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/mcp-integrations/{mcpIntegrationId}/workspaces': {
      get: adminOperation({
        operationId: 'McpIntegrationWorkspaces_list', summary: 'Which workspaces may use an MCP integration', tag: TAG, scope: 'mcp_integrations.read',
        parameters: [ID, queryParameter('version', 'set: answer `{object, total, data, global_workspace_access}`; absent: `{total, workspaces, global_workspace_access}`')],
        answer: { description: 'the workspace access', schema: ref('McpWorkspaceAccess') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'McpIntegrationWorkspaces_bulkUpdate', summary: 'Enable or disable an MCP integration per workspace', tag: TAG, scope: 'mcp_integrations.update',
        parameters: [ID], body: 'UpdateMcpWorkspacesRequest', answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: 'the integration or a named workspace is not found' },
      }),
    },
    '/mcp-integrations/{mcpIntegrationId}/capabilities': {
      get: adminOperation({
        operationId: 'McpIntegrationCapabilities_list', summary: 'The tools, prompts and resources the upstream offers', tag: TAG, scope: 'mcp_integrations.read',
        description: 'Synced from the upstream first when no sync has succeeded yet.',
        parameters: [ID, ...CAPABILITY_PARAMETERS], answer: { description: 'the capabilities with counts', schema: ref('McpList') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'McpIntegrationCapabilities_bulkUpdate', summary: 'Enable or disable capabilities of an MCP integration', tag: TAG, scope: 'mcp_integrations.update',
        parameters: [ID], body: 'UpdateMcpCapabilitiesRequest', answer: { description: 'updated', schema: ref('McpSuccess') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/mcp-integrations/{mcpIntegrationId}/metadata': {
      get: adminOperation({
        operationId: 'McpIntegrationMetadata_retrieve', summary: 'What the upstream said of itself at the last sync', tag: TAG, scope: 'mcp_integrations.read',
        parameters: [ID], answer: { description: 'server_name, server_version, protocol_version, capability_flags, sync_status, last_synced_at, sync_error', schema: ref('McpIntegrationMetadata') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
