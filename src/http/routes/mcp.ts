/**
 * The MCP gateway endpoint: `POST /v1/mcp/{mcpServerId}` (the server's id or slug) speaks the MCP Streamable HTTP
 * transport in stateless mode: each POST carries its JSON-RPC messages and gets their answers as one JSON body, no
 * session is kept, and `GET`/`DELETE` (a server-sent stream, a session's end) answer 405 as the transport allows.
 * The caller authenticates with its gateway key, in x-gateway-api-key or as `Authorization: Bearer <gateway key>`
 * (what MCP clients send); the key needs the scope `mcp_servers.read` and access to the server's workspace.
 * Everything the client sends is answered by an SDK server built per request (src/mcp/proxy-server.ts) that forwards
 * to the upstream with the integration's credentials and enforces the allow-list; every JSON-RPC request is logged.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScope } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { badGateway, GatewayError, invalidParam, unauthorized } from '../../core/errors.ts';
import { scrubbed, type McpSyncDeps } from '../../domain/mcp-integrations/sync.ts';
import { mcpServerParam, visibleMcpServer } from '../../domain/mcp-servers/access.ts';
import { gatewayServer } from '../../domain/mcp-servers/gateway-access.ts';
import type { SecretMappingResolver } from '../../domain/providers/secret-mappings.ts';
import { createMcpCallLog, type McpLogDeps } from '../../mcp/call-log.ts';
import { createMcpConnector, type McpConnection, type McpTarget } from '../../mcp/connector.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Database } from '../../storage/database.ts';
import type { Allowlist, LookupAll } from '../../upstream/ssrf-guard.ts';

export const MCP_PATH = '/v1/mcp/:mcpServerId';
/** the scope a key needs to use an MCP server through the gateway */
export const MCP_SCOPE = 'mcp_servers.read';
const BEARER = /^Bearer\s+(.+)$/i;

/**
 * The SDK's server side and its zod schemas (~30 MB resident, ~150 ms to load) come in with the first MCP request,
 * not at start-up: a gateway nobody uses as an MCP gateway never holds them.
 */
interface GatewaySdk {
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  JSONRPCMessageSchema: typeof import('@modelcontextprotocol/sdk/types.js').JSONRPCMessageSchema;
  SUPPORTED_PROTOCOL_VERSIONS: readonly string[];
  createProxyServer: typeof import('../../mcp/proxy-server.ts').createProxyServer;
}
let gatewaySdk: Promise<GatewaySdk> | undefined;
function loadGatewaySdk(): Promise<GatewaySdk> {
  gatewaySdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('../../mcp/proxy-server.ts'),
  ]).then(([transport, types, proxy]) => ({
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    JSONRPCMessageSchema: types.JSONRPCMessageSchema,
    SUPPORTED_PROTOCOL_VERSIONS: types.SUPPORTED_PROTOCOL_VERSIONS,
    createProxyServer: proxy.createProxyServer,
  }));
  return gatewaySdk;
}

export interface McpRouteDeps {
  database: Database;
  secrets: SecretCipher;
  allowlist: Allowlist;
  lookup?: LookupAll | undefined;
  secretMappings?: SecretMappingResolver | undefined;
  log: McpLogDeps;
}

/** Before authentication: an MCP client sends the gateway key as a bearer token. It goes no further than here. */
export function registerMcpKeyHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.url !== MCP_PATH) return done();
    const headers = request.headers;
    const bearer = BEARER.exec(typeof headers.authorization === 'string' ? headers.authorization : '');
    if (headers['x-gateway-api-key'] === undefined && bearer) headers['x-gateway-api-key'] = bearer[1]!.trim();
    delete headers.authorization;
    done();
  });
}

function principalOf(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (!principal) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
  requireScope(principal, MCP_SCOPE);
  return principal;
}

/** What the transport would refuse in JSON-RPC's shape, refused first in the gateway's error shape. */
function checkExchange(request: FastifyRequest, { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS }: GatewaySdk): void {
  const accept = String(request.headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new GatewayError(406, 'invalid_request_error', 'accept must list both application/json and text/event-stream (MCP Streamable HTTP).', { param: 'accept', code: 'not_acceptable' });
  }
  const version = request.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
    throw invalidParam('mcp-protocol-version', `mcp-protocol-version must be one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`, 'unsupported_protocol_version');
  }
  const body = request.body;
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > 100) throw invalidParam('body', 'The body must be one JSON-RPC message or a batch of 1 to 100.');
  messages.forEach((message, index) => {
    if (!JSONRPCMessageSchema.safeParse(message).success) {
      throw invalidParam(Array.isArray(body) ? `body[${index}]` : 'body', 'The body must be a JSON-RPC 2.0 message (jsonrpc "2.0", a method or a result).', 'invalid_jsonrpc');
    }
  });
}

function methodNotAllowed(): GatewayError {
  return new GatewayError(405, 'invalid_request_error', 'This MCP endpoint is stateless: it takes POST only (no server-sent stream, no session to end).', { code: 'method_not_allowed' });
}

export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): void {
  const connector = createMcpConnector({ allowlist: deps.allowlist, lookup: deps.lookup });
  app.addHook('onClose', () => connector.close());
  const sync: McpSyncDeps = { connector, cipher: deps.secrets, secretMappings: deps.secretMappings, now: Date.now };
  const db = deps.database.db;

  app.post(MCP_PATH, async (request, reply) => {
    const principal = principalOf(request);
    const sdk = await loadGatewaySdk();
    checkExchange(request, sdk);
    const found = await gatewayServer(db, principal, mcpServerParam(request.params), sync);
    const flags = found.integration.capabilityFlags;
    if (!flags) {
      throw badGateway(`MCP server "${found.server.slug}" could not read its upstream: ${found.integration.syncError ?? 'no sync yet'}`, 'mcp_upstream_unavailable');
    }
    let connection: Promise<{ connection: McpConnection } | { error: Error }> | undefined;
    const upstream = async () => {
      connection ??= (async () => {
        let target: McpTarget | undefined;
        try {
          target = await found.target();
          return { connection: await connector.connect(target) };
        } catch (error) {
          return { error: new Error(scrubbed(error, target)) };
        }
      })();
      const opened = await connection;
      if ('error' in opened) throw opened.error;
      return opened.connection.client;
    };
    const name = found.integration.serverName ?? found.server.slug;
    const server = sdk.createProxyServer({ serverInfo: { name, version: found.integration.serverVersion ?? '0.0.0' }, flags, allow: found.allow, upstream });
    const transport = new sdk.StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const traceHeader = request.headers['x-gateway-trace-id'];
    const log = createMcpCallLog(
      {
        principal,
        server: { id: found.server.id, slug: found.server.slug },
        path: `/v1/mcp/${found.server.id}`,
        headers: request.headers,
        traceId: typeof traceHeader === 'string' && traceHeader.trim() ? traceHeader.trim() : String(request.id),
      },
      deps.log,
    );
    log.received(request.body);
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      log.sent(message);
      return send(message, options);
    };
    await server.connect(transport);
    reply.hijack();
    reply.raw.once('close', () => {
      log.closed();
      void server.close();
      void connection?.then((opened) => ('connection' in opened ? opened.connection.close() : undefined));
    });
    try {
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'mcp: the exchange failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ error: { message: 'The MCP exchange failed.', type: 'server_error', param: null, code: 'mcp_exchange_failed' } }));
      } else reply.raw.destroy();
    }
  });

  const refuse = async (request: FastifyRequest) => {
    await visibleMcpServer(db, principalOf(request), mcpServerParam(request.params));
    throw methodNotAllowed();
  };
  app.get(MCP_PATH, async (request, reply) => {
    reply.header('allow', 'POST');
    return refuse(request);
  });
  app.delete(MCP_PATH, async (request, reply) => {
    reply.header('allow', 'POST');
    return refuse(request);
  });
}
