/**
 * Provider selection: which adapter and which target serve this call, from a provider name with direct credentials
 * or a custom host. Saved providers (`@slug`, virtual keys, `@slug/model`) are resolved before this, in
 * saved-provider-target.ts; configs are planned into attempts before that (request-plan.ts).
 */
import { LRUCache } from 'lru-cache';
import { boundedLru } from '../core/lru.ts';
import type { GatewayHeaders } from '../core/context.ts';
import { badRequest, invalidParam, notImplemented } from '../core/errors.ts';
import type { ProviderAdapter, ProviderTarget, RouteKind } from '../providers/contract.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { checkCustomHost, type Allowlist, type LookupAll } from '../upstream/ssrf-guard.ts';

export interface TargetDeps {
  registry: ProviderRegistry;
  allowlist: Allowlist;
  lookup?: LookupAll;
  /**
   * custom host -> checked base URL, for a short time: the check resolves DNS, which the hot path should not pay
   * on every request. Safe because the connection itself goes through the guarded lookup (src/upstream/client.ts),
   * which re-checks every address it connects to.
   */
  checkedHosts?: LRUCache<string, string>;
}

export function createCheckedHostCache(): LRUCache<string, string> {
  return boundedLru<string, string>(10_000, { ttl: 30_000 });
}

/** The base URL of a custom host, checked by the SSRF guard (and held briefly: see TargetDeps.checkedHosts). */
export async function customBaseUrl(customHost: string, deps: Pick<TargetDeps, 'allowlist' | 'lookup' | 'checkedHosts'>): Promise<string> {
  const cached = deps.checkedHosts?.get(customHost);
  if (cached !== undefined) return cached;
  const url = await checkCustomHost(customHost, deps.allowlist, deps.lookup);
  const baseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  deps.checkedHosts?.set(customHost, baseUrl);
  return baseUrl;
}

export interface ResolvedTarget {
  adapter: ProviderAdapter;
  target: ProviderTarget;
}

/** True when the request names a provider in any way (provider, slug, virtual key or config). */
export function hasProviderSignal(headers: GatewayHeaders): boolean {
  return Boolean(headers.provider || headers.providerSlug || headers.virtualKey || headers.config);
}

export async function resolveTarget(headers: GatewayHeaders, route: RouteKind, deps: TargetDeps): Promise<ResolvedTarget> {
  if (headers.config) {
    throw notImplemented('Routing configs (x-gateway-config) are not available in this version yet.', 'config_not_supported');
  }
  if (!headers.provider) {
    throw badRequest(
      'No provider selected: send x-gateway-provider (with Authorization), x-gateway-config or x-gateway-virtual-key.',
      'missing_provider',
      'x-gateway-provider',
    );
  }
  const adapter = deps.registry.get(headers.provider);
  if (!adapter) {
    throw invalidParam('x-gateway-provider', `Unknown provider "${headers.provider}".`, 'unknown_provider');
  }
  if (!adapter.capabilities.routes.has(route)) {
    throw invalidParam('x-gateway-provider', `Provider "${adapter.name}" does not support this route (${route}).`, 'unsupported_route');
  }
  let baseUrl: string;
  const customHost = headers.customHost !== undefined;
  if (headers.customHost !== undefined) {
    baseUrl = await customBaseUrl(headers.customHost, deps);
  } else if (adapter.baseUrlFor) {
    baseUrl = adapter.baseUrlFor(headers.cloud);
  } else if (adapter.defaultBaseUrl) {
    baseUrl = adapter.defaultBaseUrl;
  } else {
    throw invalidParam(
      'x-gateway-custom-host',
      `Provider "${adapter.name}" has no public endpoint: send its base URL in x-gateway-custom-host.`,
      'custom_host_required',
    );
  }
  return {
    adapter,
    target: { provider: adapter.name, baseUrl, customHost, apiKey: headers.providerToken, cloud: headers.cloud },
  };
}
