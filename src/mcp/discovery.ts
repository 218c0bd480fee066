/**
 * What an upstream MCP server offers, read through a connected SDK client: its name, version and protocol version
 * from `initialize`, and every tool, prompt, resource and resource template (each list followed through its
 * `nextCursor` pages, up to a bound). A list the server does not declare in its capabilities is not asked for.
 */
import type { DiscoveredCapability } from '../storage/repositories/mcp-capabilities.ts';
import { MCP_REQUEST_TIMEOUT_MS, type McpConnection } from './connector.ts';

/** JSON-RPC's "method not found" (the SDK's ErrorCode.MethodNotFound; its types module is not loaded for one number) */
const METHOD_NOT_FOUND = -32601;

const MAX_PAGES = 50;

export interface Discovery {
  serverName: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  /** the upstream's capabilities object from `initialize` */
  flags: Record<string, unknown>;
  capabilities: DiscoveredCapability[];
}

type Page<T> = { nextCursor?: string | undefined } & Record<string, unknown> & { items: T[] };

async function allPages<T>(read: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await read(cursor);
    items.push(...answer.items);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return items;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Every field but the ones the row keeps in columns, renamed to the admin API's snake_case. */
function definitionOf(item: Record<string, unknown>, renames: Record<string, string>, skip: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (skip.includes(key) || value === undefined) continue;
    out[renames[key] ?? key] = value;
  }
  return out;
}

const RENAMES = { inputSchema: 'input_schema', outputSchema: 'output_schema', mimeType: 'mime_type', uriTemplate: 'uri_template' };

function capability(type: DiscoveredCapability['type'], name: string, item: Record<string, unknown>): DiscoveredCapability {
  return {
    type,
    name,
    title: text(item.title),
    description: text(item.description),
    definition: definitionOf(item, RENAMES, ['name', 'title', 'description']),
  };
}

export async function discover(connection: McpConnection): Promise<Discovery> {
  const { client, protocolVersion } = connection;
  const flags = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  const info = client.getServerVersion();
  const options = { timeout: MCP_REQUEST_TIMEOUT_MS };
  const found: DiscoveredCapability[] = [];
  if (flags.tools) {
    const tools = await allPages((cursor) => client.listTools(cursor ? { cursor } : undefined, options).then((page) => ({ ...page, items: page.tools })));
    found.push(...tools.map((tool) => capability('tool', tool.name, tool as Record<string, unknown>)));
  }
  if (flags.prompts) {
    const prompts = await allPages((cursor) => client.listPrompts(cursor ? { cursor } : undefined, options).then((page) => ({ ...page, items: page.prompts })));
    found.push(...prompts.map((prompt) => capability('prompt', prompt.name, prompt as Record<string, unknown>)));
  }
  if (flags.resources) {
    const resources = await allPages((cursor) => client.listResources(cursor ? { cursor } : undefined, options).then((page) => ({ ...page, items: page.resources })));
    found.push(...resources.map((resource) => capability('resource', resource.uri, { ...resource, uri: resource.uri, display_name: resource.name })));
    // templates came later to the protocol: a server with resources may not know the method
    const templates = await allPages((cursor) =>
      client.listResourceTemplates(cursor ? { cursor } : undefined, options).then((page) => ({ ...page, items: page.resourceTemplates })),
    ).catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code === METHOD_NOT_FOUND) return [];
      throw error;
    });
    found.push(...templates.map((template) => capability('resource_template', template.uriTemplate, { ...template, display_name: template.name })));
  }
  return {
    serverName: info?.name ?? null,
    serverVersion: info?.version ?? null,
    protocolVersion: protocolVersion ?? null,
    flags,
    capabilities: found,
  };
}
