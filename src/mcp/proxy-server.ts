/**
 * The gateway's side of one MCP exchange: an SDK `Server` whose handlers forward `tools/*`, `prompts/*` and
 * `resources/*` to the upstream through an SDK `Client`, filtered by the server's allow-list. `initialize` and `ping`
 * are answered by the SDK server itself from what the last sync stored (the upstream is not contacted for them), so
 * the upstream is connected to only when a forwarded method needs it.
 *
 * Errors: a refused capability is `-32602` (the protocol's answer to an unknown tool or prompt) with
 * `data.gateway = "denied"`; an upstream that cannot be reached is `-32603` with `data.gateway = "upstream_unavailable"`;
 * the upstream's own JSON-RPC errors pass through unchanged.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { DENIED } from './denied.ts';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { allowsResource, type AllowList } from './allow-list.ts';
import { MCP_REQUEST_TIMEOUT_MS } from './connector.ts';

export const UPSTREAM_UNAVAILABLE = 'upstream_unavailable';

export interface ProxyOptions {
  serverInfo: { name: string; version: string };
  /** the upstream's capabilities as the last sync stored them */
  flags: Readonly<Record<string, unknown>>;
  allow: AllowList;
  /** the upstream client, connected on first use (and reused for the rest of the exchange) */
  upstream: () => Promise<Client>;
}

function denied(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message, { gateway: DENIED });
}

/** Only what the gateway forwards is declared: subscriptions and change notifications need a session it does not keep. */
function declared(flags: Readonly<Record<string, unknown>>): ServerCapabilities {
  return {
    ...(flags.tools ? { tools: {} } : {}),
    ...(flags.prompts ? { prompts: {} } : {}),
    ...(flags.resources ? { resources: {} } : {}),
  };
}

export function createProxyServer(options: ProxyOptions): Server {
  const server = new Server(options.serverInfo, { capabilities: declared(options.flags) });
  const { allow } = options;

  async function upstream(): Promise<Client> {
    try {
      return await options.upstream();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new McpError(ErrorCode.InternalError, `The upstream MCP server could not be reached: ${reason}`, { gateway: UPSTREAM_UNAVAILABLE });
    }
  }
  const requestOptions = (signal: AbortSignal): RequestOptions => ({ signal, timeout: MCP_REQUEST_TIMEOUT_MS });

  if (options.flags.tools) {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const page = await (await upstream()).request(request, ListToolsResultSchema, requestOptions(extra.signal));
      return { ...page, tools: page.tools.filter((tool) => allow.tools.has(tool.name)) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (!allow.tools.has(request.params.name)) throw denied(`Tool "${request.params.name}" is not enabled on this MCP server.`);
      return (await upstream()).request(request, CallToolResultSchema, requestOptions(extra.signal));
    });
  }
  if (options.flags.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
      const page = await (await upstream()).request(request, ListPromptsResultSchema, requestOptions(extra.signal));
      return { ...page, prompts: page.prompts.filter((prompt) => allow.prompts.has(prompt.name)) };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      if (!allow.prompts.has(request.params.name)) throw denied(`Prompt "${request.params.name}" is not enabled on this MCP server.`);
      return (await upstream()).request(request, GetPromptResultSchema, requestOptions(extra.signal));
    });
  }
  if (options.flags.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
      const page = await (await upstream()).request(request, ListResourcesResultSchema, requestOptions(extra.signal));
      return { ...page, resources: page.resources.filter((resource) => allow.resources.has(resource.uri)) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request, extra) => {
      const page = await (await upstream()).request(request, ListResourceTemplatesResultSchema, requestOptions(extra.signal));
      return { ...page, resourceTemplates: page.resourceTemplates.filter((template) => allow.templates.has(template.uriTemplate)) };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      if (!allowsResource(allow, request.params.uri)) throw denied(`Resource "${request.params.uri}" is not enabled on this MCP server.`);
      return (await upstream()).request(request, ReadResourceResultSchema, requestOptions(extra.signal));
    });
  }
  return server;
}
