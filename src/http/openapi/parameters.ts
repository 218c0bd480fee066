/** Parameters: the x-gateway-* request headers of the inference routes, and the path and query parameters of the admin API. */
import type { JsonSchema, Parameter, Reference } from './types.ts';

function header(name: string, description: string, schema: JsonSchema = { type: 'string' }): Parameter {
  return { name, in: 'header', description, schema };
}

/**
 * What every inference route reads (src/http/parse-gateway-headers.ts); a malformed value is a 400 naming the
 * header. Declared once under components.parameters and referred to by each operation.
 */
const GATEWAY_HEADER_LIST: readonly Parameter[] = [
  header('x-gateway-provider', 'the provider to call (e.g. openai, anthropic, bedrock), unless a config or virtual key names it'),
  header('x-gateway-virtual-key', 'a virtual key that names the provider and holds its credential'),
  header('x-gateway-config', 'a routing config: a saved config\'s id or slug, or a GatewayConfig as JSON (components.schemas.GatewayConfig)'),
  header('x-gateway-custom-host', 'the provider\'s base URL; private and reserved addresses are refused unless allowlisted', { type: 'string', format: 'uri' }),
  header('x-gateway-request-timeout', 'milliseconds before the gateway gives up on the provider (408)', { type: 'integer', minimum: 1 }),
  header('x-gateway-metadata', 'a JSON object, stored with the request log'),
  header('x-gateway-trace-id', 'the trace id; generated when absent, and echoed on the answer'),
  header('x-gateway-span-id', 'the span id of this request in the trace'),
  header('x-gateway-parent-span-id', 'the parent span id'),
  header('x-gateway-span-name', 'a name for the span'),
  header('x-gateway-cache-namespace', 'partitions the cache: only requests of the same namespace share answers'),
  header('x-gateway-cache-force-refresh', 'true: call the provider and replace the cached answer', { type: 'string', enum: ['true', 'false'] }),
  header('x-gateway-forward-headers', 'comma-separated names of request headers sent on to the provider'),
  header('x-gateway-sensitive-headers', 'comma-separated names of headers to mask in the logs'),
  header('x-gateway-strict-reference-compliance', 'true: answers carry only the reference\'s fields', { type: 'string', enum: ['true', 'false'] }),
];

/** `x-gateway-cache-namespace` -> `CacheNamespaceHeader` */
function componentName(name: string): string {
  return `${name.replace(/^x-gateway-/, '').split('-').map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}Header`;
}

export const GATEWAY_HEADER_COMPONENTS: Record<string, Parameter> = Object.fromEntries(
  GATEWAY_HEADER_LIST.map((parameter) => [componentName(parameter.name), parameter]),
);

export const GATEWAY_HEADERS: readonly Reference[] = Object.keys(GATEWAY_HEADER_COMPONENTS).map((name) => ({ $ref: `#/components/parameters/${name}` }));

export const FETCH_INTEGRATED_MODELS = header(
  'x-gateway-fetch-integrated-models',
  'true: answer from the integrated catalog even when a provider is named',
  { type: 'string', enum: ['true', 'false'] },
);

export function pathParameter(name: string, description: string, schema: JsonSchema = { type: 'string' }): Parameter {
  return { name, in: 'path', required: true, description, schema };
}

export function queryParameter(name: string, description: string, schema: JsonSchema = { type: 'string', minLength: 1, maxLength: 255 }, required = false): Parameter {
  return { name, in: 'query', description, schema, ...(required ? { required: true } : {}) };
}

export const UUID_SCHEMA: JsonSchema = { type: 'string', format: 'uuid' };

/** The one paging rule (src/http/admin/params.ts pageParams); the camelCase spellings currentPage and pageSize are accepted too. */
export function pageParameters(sizes: { defaultSize: number; maxSize: number }): Parameter[] {
  return [
    queryParameter('current_page', '0-based page number (also accepted as currentPage)', { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 }),
    queryParameter('page_size', 'entries per page (also accepted as pageSize)', { type: 'integer', minimum: 1, maximum: sizes.maxSize, default: sizes.defaultSize }),
  ];
}

/** The workspace_id filter of the workspace-scoped lists: a workspace the caller cannot see is a 404. */
export const WORKSPACE_FILTER = queryParameter('workspace_id', 'only this workspace (id or slug); a workspace key sees its own only');
