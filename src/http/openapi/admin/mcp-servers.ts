/** MCP servers (src/http/admin/mcp-servers/), addressed by id or slug, and the MCP gateway endpoint (src/http/routes/mcp.ts). */
import { ref } from '../components.ts';
import { errors, json } from '../responses.ts';
import { pageParameters, pathParameter, queryParameter, UUID_SCHEMA } from '../parameters.ts';
import type { Operation, Paths } from '../types.ts';
import { CAPABILITY_PARAMETERS } from './mcp-integrations.ts';
import { adminOperation, NOT_FOUND_OR_HIDDEN } from './operation.ts';

const TAG = 'mcp-servers';
const ID = pathParameter('mcpServerId', 'the MCP server\'s id or slug', { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,255}$' });

const GATEWAY = [
  'The MCP Streamable HTTP transport, stateless: each POST carries JSON-RPC messages (initialize, tools/list, tools/call, prompts/list, prompts/get,',
  'resources/list, resources/templates/list, resources/read, ping) and gets their answers as one JSON body. The gateway key comes in x-gateway-api-key or as',
  '`Authorization: Bearer <gateway key>`, needs the scope `mcp_servers.read` and access to the server\'s workspace; a user key also needs the server\'s user',
  'access. Calls are forwarded to the upstream with the integration\'s stored headers; lists are filtered and calls refused (JSON-RPC -32602,',
  '`data.gateway: "denied"`) for capabilities not enabled on both the integration and the server. Each JSON-RPC request is one request-log row (route `mcp`).',
].join(' ');

function gatewayOperation(method: 'post' | 'get' | 'delete'): Operation {
  const post = method === 'post';
  return {
    operationId: `mcpGateway_${method}`,
    summary: post ? 'MCP endpoint of an MCP server' : 'Not served: the endpoint is stateless',
    description: post ? GATEWAY : 'Answers 405 (after authentication): no server-sent stream and no session to end.',
    tags: [TAG],
    parameters: [
      pathParameter('mcpServerId', 'the MCP server\'s id or slug', { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,255}$' }),
      ...(post ? [{ name: 'mcp-protocol-version', in: 'header', description: 'the negotiated protocol version', schema: { type: 'string' } }] : []),
    ],
    ...(post ? { requestBody: { required: true, content: { 'application/json': { schema: ref('McpJsonRpcBody') } } } } : {}),
    responses: {
      ...(post ? { '200': json('the JSON-RPC answers', ref('McpJsonRpcAnswer')), '202': { description: 'notifications only: accepted' } } : {}),
      ...errors({
        400: 'not a JSON-RPC message, or an unsupported mcp-protocol-version',
        401: 'no or an unknown gateway key',
        403: 'the key lacks mcp_servers.read, the user is denied, or the integration is off for the workspace',
        404: NOT_FOUND_OR_HIDDEN,
        ...(post ? { 406: 'accept must list application/json and text/event-stream', 502: 'the upstream could not be read' } : { 405: 'only POST is served' }),
      }),
    },
  } as Operation;
}

export function mcpServerPaths(): Paths {
  return {
    '/mcp-servers': {
      post: adminOperation({
        operationId: 'McpServers_create', summary: 'Use an MCP integration in a workspace', tag: TAG, scope: 'mcp_servers.create',
        description: 'The integration must be usable by the workspace. The slug (unique in the organisation) addresses the gateway endpoint `/v1/mcp/{slug}`.',
        body: 'CreateMcpServerRequest', answer: { description: 'the new server', schema: ref('McpReference') },
        errors: { 404: 'the workspace or the integration is not found', 409: 'the slug is taken' },
      }),
      get: adminOperation({
        operationId: 'McpServers_list', summary: 'List MCP servers', tag: TAG, scope: 'mcp_servers.list',
        parameters: [
          ...pageParameters({ defaultSize: 100, maxSize: 100 }),
          queryParameter('workspace_id', 'only this workspace (id or slug)'),
          queryParameter('id', 'comma-separated server ids', { type: 'string', minLength: 1, maxLength: 10_000 }),
          queryParameter('search', 'part of the name or slug'),
        ],
        answer: { description: 'the servers the caller can see', schema: ref('McpList') }, errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/mcp-servers/{mcpServerId}': {
      get: adminOperation({ operationId: 'McpServers_retrieve', summary: 'Get an MCP server', tag: TAG, scope: 'mcp_servers.read', parameters: [ID], answer: { description: 'the server', schema: ref('McpServer') }, errors: { 404: NOT_FOUND_OR_HIDDEN } }),
      put: adminOperation({ operationId: 'McpServers_update', summary: 'Update an MCP server', tag: TAG, scope: 'mcp_servers.update', parameters: [ID], body: 'UpdateMcpServerRequest', answer: { description: 'updated', schema: ref('EmptyObject') }, errors: { 404: NOT_FOUND_OR_HIDDEN } }),
      delete: adminOperation({ operationId: 'McpServers_delete', summary: 'Delete an MCP server', tag: TAG, scope: 'mcp_servers.delete', parameters: [ID], answer: { description: 'deleted', schema: ref('EmptyObject') }, errors: { 404: NOT_FOUND_OR_HIDDEN } }),
    },
    '/mcp-servers/{mcpServerId}/test': {
      post: adminOperation({
        operationId: 'McpServers_test', summary: 'Connect to the upstream and sync what it offers', tag: TAG, scope: 'mcp_servers.read', parameters: [ID],
        body: 'McpServerTestRequest', bodyRequired: false,
        answer: { description: 'success, status_code, response_time_ms, url, server_name, error', schema: ref('McpServerTest') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/mcp-servers/{mcpServerId}/capabilities': {
      get: adminOperation({ operationId: 'McpServerCapabilities_list', summary: 'The server\'s capabilities: its own switch and the integration\'s', tag: TAG, scope: 'mcp_servers.read', parameters: [ID, ...CAPABILITY_PARAMETERS], answer: { description: 'the capabilities with counts', schema: ref('McpList') }, errors: { 404: NOT_FOUND_OR_HIDDEN } }),
      put: adminOperation({ operationId: 'McpServerCapabilities_bulkUpdate', summary: 'Switch capabilities on or off for this server', tag: TAG, scope: 'mcp_servers.update', parameters: [ID], body: 'UpdateMcpCapabilitiesRequest', answer: { description: 'updated', schema: ref('McpSuccess') }, errors: { 404: NOT_FOUND_OR_HIDDEN } }),
    },
    '/mcp-servers/{mcpServerId}/user-access': {
      get: adminOperation({
        operationId: 'McpServerUserAccess_list', summary: 'Which of the workspace\'s users may use the server', tag: TAG, scope: 'mcp_servers.read',
        parameters: [ID, queryParameter('page', '1-based page number', { type: 'integer', minimum: 1, default: 1 }), queryParameter('page_size', 'entries per page', { type: 'integer', minimum: 1, maximum: 500, default: 100 }), queryParameter('search', 'part of a name or email')],
        answer: { description: 'the users, with default_user_access', schema: ref('McpList') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({ operationId: 'McpServerUserAccess_bulkUpdate', summary: 'Allow or deny users, or change the default', tag: TAG, scope: 'mcp_servers.update', parameters: [ID], body: 'UpdateMcpUserAccessRequest', answer: { description: 'updated', schema: ref('McpSuccess') }, errors: { 404: 'the server or a named user is not found' } }),
    },
    '/mcp-servers/{mcpServerId}/connections': {
      get: adminOperation({
        operationId: 'McpServerConnections_list', summary: 'Users\' own OAuth connections (none: the gateway holds one credential per integration)', tag: TAG, scope: 'mcp_servers.read',
        parameters: [ID, queryParameter('user_id', 'one user', UUID_SCHEMA), queryParameter('workspace_id', 'the server\'s workspace'), ...pageParameters({ defaultSize: 100, maxSize: 500 })],
        answer: { description: 'an empty list', schema: ref('McpList') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'McpServerConnections_delete', summary: 'Delete a user\'s connection (there is none to delete)', tag: TAG, scope: 'mcp_servers.update',
        parameters: [ID, queryParameter('user_id', 'required with service keys', UUID_SCHEMA), queryParameter('workspace_id', 'the server\'s workspace')],
        answer: { description: 'done', schema: ref('McpSuccess') }, errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/mcp/{mcpServerId}': { post: gatewayOperation('post'), get: gatewayOperation('get'), delete: gatewayOperation('delete') },
  };
}
