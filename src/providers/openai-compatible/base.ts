/**
 * The OpenAI-compatible base adapter. Vendors that differ from OpenAI only by URL, auth header and the routes
 * they serve are data entries (vendors.ts); a vendor that differs more overrides one hook.
 * Request bodies pass through byte for byte: no parse-and-rebuild when nothing changes.
 */
import type {
  Capabilities,
  CloudSettings,
  InferenceCall,
  ProviderAdapter,
  ProviderTarget,
  ResponseTransform,
  RouteKind,
  UpstreamRequest,
} from '../contract.ts';
import { authHeaders, type AuthStyle } from '../shared/auth-headers.ts';
import { isRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

export interface OpenAiCompatibleVendor {
  name: string;
  defaultBaseUrl: string | undefined;
  /** the credential header; a function when a cloud setting chooses it (Azure: `api-key`, or an Entra bearer) */
  auth: AuthStyle | ((target: ProviderTarget) => AuthStyle);
  routes: readonly RouteKind[];
  tools?: boolean;
  /** vendor-specific answer shapes, by route (e.g. a rerank whose response differs from ours) */
  transforms?: Partial<Record<RouteKind, ResponseTransform>>;
  /** the upstream URL when it is not `{baseUrl}{OpenAI's path}?{client query}` (Azure: deployment path, api-version) */
  url?(call: InferenceCall, target: ProviderTarget): string;
  /** further headers the vendor needs on every call, beside the credential */
  headers?(target: ProviderTarget): Record<string, string>;
  /**
   * where the vendor departs from OpenAI's request, per route: parameters it rejects (dropped, with a warning)
   * and parameters it names differently (renamed). The body is rebuilt only when one of them is present.
   */
  deviations?: Partial<Record<RouteKind, { unsupported?: readonly string[]; renamed?: Readonly<Record<string, string>> }>>;
  /** the x-gateway-<vendor>-* settings `headers` reads (OpenAI's organization and project) */
  cloudSettings?: CloudSettings;
}

/** Upstream path per built-in route, relative to the base URL (OpenAI's layout). */
export function upstreamPath(call: InferenceCall): string {
  const id = call.params.response_id ? encodeURIComponent(call.params.response_id) : '';
  switch (call.route) {
    case 'chat':
      return '/chat/completions';
    case 'completions':
      return '/completions';
    case 'embeddings':
      return '/embeddings';
    case 'rerank':
      return '/rerank';
    case 'models':
      return '/models';
    case 'responses.create':
      return '/responses';
    case 'responses.get':
    case 'responses.delete':
      return `/responses/${id}`;
    case 'responses.input_items':
      return `/responses/${id}/input_items`;
    case 'messages':
      return '/messages';
    case 'messages.count_tokens':
      return '/messages/count_tokens';
    case 'passthrough':
      return call.path;
  }
}

/**
 * The client's bytes, untouched, except on built-in routes when they carry something this vendor must not get:
 * the gateway's own `strict_reference_compliance` flag, or a parameter the vendor rejects or names differently.
 * Then (only then) the body is rebuilt.
 */
function requestBody(call: InferenceCall, vendor: OpenAiCompatibleVendor, warnings: string[]): Buffer | string | undefined {
  if (!call.rawBody || call.rawBody.length === 0) return undefined;
  const body = call.body;
  if (call.route === 'passthrough' || !isRecord(body)) return call.rawBody;
  const deviation = vendor.deviations?.[call.route];
  const dropped = (deviation?.unsupported ?? []).filter((name) => body[name] !== undefined);
  const renamed = Object.keys(deviation?.renamed ?? {}).filter((name) => body[name] !== undefined);
  if (!('strict_reference_compliance' in body) && dropped.length === 0 && renamed.length === 0) return call.rawBody;
  const rebuilt: Record<string, unknown> = { ...body };
  delete rebuilt.strict_reference_compliance;
  for (const name of dropped) {
    delete rebuilt[name];
    warnings.push(droppedParameter(vendor.name, name));
  }
  for (const name of renamed) {
    rebuilt[deviation!.renamed![name]!] = rebuilt[name];
    delete rebuilt[name];
  }
  return JSON.stringify(rebuilt);
}

export function createOpenAiCompatibleAdapter(vendor: OpenAiCompatibleVendor): ProviderAdapter {
  const capabilities: Capabilities = {
    routes: new Set<RouteKind>([...vendor.routes, 'passthrough']),
    streaming: vendor.routes.includes('chat') || vendor.routes.includes('completions'),
    tools: vendor.tools ?? vendor.routes.includes('chat'),
    framing: 'sse',
  };
  return {
    name: vendor.name,
    capabilities,
    defaultBaseUrl: vendor.defaultBaseUrl,
    ...(vendor.cloudSettings ? { cloudSettings: vendor.cloudSettings } : {}),
    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      const query = call.query ? `?${call.query}` : '';
      const url = vendor.url ? vendor.url(call, target) : `${target.baseUrl}${upstreamPath(call)}${query}`;
      const style = typeof vendor.auth === 'function' ? vendor.auth(target) : vendor.auth;
      const headers: Record<string, string> = { ...vendor.headers?.(target), ...authHeaders(style, target.apiKey) };
      const warnings: string[] = [];
      const body = requestBody(call, vendor, warnings);
      if (body !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
      return { method: call.method, url, headers, body, warnings };
    },
    responseTransform(route: RouteKind) {
      return vendor.transforms?.[route];
    },
  };
}
