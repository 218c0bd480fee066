/**
 * The components of the MCP groups: their request bodies (the validating TypeBox constants themselves), the
 * gateway endpoint's JSON-RPC body, and the answers as the views build them (open objects: a field added to a view
 * does not break a client). components.ts spreads them into the document.
 */
import { Type } from '@sinclair/typebox';
import {
  CreateMcpIntegrationSchema,
  UpdateMcpCapabilitiesSchema,
  UpdateMcpIntegrationSchema,
  UpdateMcpWorkspacesSchema,
} from '../../admin/mcp-integrations/schemas.ts';
import { CreateMcpServerSchema, UpdateMcpServerSchema, UpdateMcpUserAccessSchema } from '../../admin/mcp-servers/schemas.ts';
import { Uuid } from '../common-schemas.ts';

const list = (description: string) =>
  Type.Object(
    { object: Type.Literal('list'), total: Type.Integer(), data: Type.Array(Type.Object({})), has_more: Type.Optional(Type.Boolean()) },
    { description },
  );

export const MCP_COMPONENTS = {
  CreateMcpIntegrationRequest: CreateMcpIntegrationSchema,
  UpdateMcpIntegrationRequest: UpdateMcpIntegrationSchema,
  UpdateMcpWorkspacesRequest: UpdateMcpWorkspacesSchema,
  UpdateMcpCapabilitiesRequest: UpdateMcpCapabilitiesSchema,
  CreateMcpServerRequest: CreateMcpServerSchema,
  UpdateMcpServerRequest: UpdateMcpServerSchema,
  UpdateMcpUserAccessRequest: UpdateMcpUserAccessSchema,
  McpServerTestRequest: Type.Object({}, { additionalProperties: false, description: 'no body (an empty object is accepted)' }),
  McpJsonRpcBody: Type.Unsafe<unknown>({
    description: 'a JSON-RPC 2.0 message (`jsonrpc: "2.0"` with a method, or a result or error), or a batch of 1 to 100 of them',
    anyOf: [{ type: 'object', required: ['jsonrpc'] }, { type: 'array', minItems: 1, maxItems: 100, items: { type: 'object' } }],
  }),
  McpReference: Type.Object({ id: Uuid, slug: Type.String() }, { description: 'what a create answers' }),
  McpSuccess: Type.Object({ success: Type.Boolean() }),
  McpList: list('`{object: "list", total, data, has_more}`; capability lists add `counts`, user access adds `default_user_access`'),
  McpIntegration: Type.Object({}, { description: 'an MCP integration (api-surface §3.15 McpIntegration); header values shown as ********' }),
  McpIntegrationMetadata: Type.Object({}, { description: 'server_name, server_version, protocol_version, capability_flags, sync_status, last_synced_at, sync_error' }),
  McpWorkspaceAccess: Type.Object({}, { description: '`{total, workspaces, global_workspace_access}`, or with `version` `{object, total, data, global_workspace_access}`' }),
  McpServer: Type.Object({}, { description: 'an MCP server (api-surface §3.16 McpServer) with its integration\'s details, header values masked' }),
  McpServerTest: Type.Object({}, { description: 'success, status_code, response_time_ms, url, server_name, error' }),
  McpJsonRpcAnswer: Type.Unsafe<unknown>({ description: 'the JSON-RPC answer(s) to the request(s) of the body' }),
} as const;
