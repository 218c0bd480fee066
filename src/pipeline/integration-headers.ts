/**
 * An integration's custom headers (domain/integrations/custom-headers.ts) on every request through it: added to
 * what the adapter builds, never over it. A header the adapter sets (its credential above all) keeps the adapter's
 * value; a credential added later, in `prepare` (an Entra token, a SigV4 signature, a Vertex access token),
 * replaces a custom one of the same name, since names are sent in lower case. The adapter is wrapped per request,
 * so every path that sends through it (inference, files, realtime) sends them.
 */
import type { ProviderAdapter } from '../providers/contract.ts';

export function customHeadersOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, inner] of Object.entries(value)) if (typeof inner === 'string') headers[name.toLowerCase()] = inner;
  return Object.keys(headers).length > 0 ? headers : undefined;
}

export function withCustomHeaders(adapter: ProviderAdapter, custom: Readonly<Record<string, string>> | undefined): ProviderAdapter {
  if (!custom) return adapter;
  return {
    ...adapter,
    buildRequest(call, target) {
      const request = adapter.buildRequest(call, target);
      const taken = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
      const headers: Record<string, string> = { ...request.headers };
      for (const [name, value] of Object.entries(custom)) if (!taken.has(name)) headers[name] = value;
      return { ...request, headers };
    },
  };
}
