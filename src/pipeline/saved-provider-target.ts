/**
 * A saved provider as an attempt's target. The record (held in process: domain/providers/saved-providers.ts) gives
 * the adapter (its integration's provider), the base URL and cloud settings (its configurations; a custom host goes
 * through the SSRF guard) and the credential: a client never needs to send a provider key. A provider that is unknown
 * is a 400 naming the header or field; expired, a 401; exhausted, a 429; each says which.
 *
 * The client cannot send a saved credential elsewhere: with a saved provider, x-gateway-custom-host and the cloud
 * headers (which choose hosts too) are refused rather than combined with the stored settings.
 *
 * A provider's structured settings (the Azure deployment list) give the cloud settings for the request's model
 * (src/providers/integration-settings.ts); the integration's custom headers go with every call (integration-headers.ts).
 */
import type { GatewayHeaders, Principal } from '../core/context.ts';
import { badRequest, GatewayError, invalidParam } from '../core/errors.ts';
import type { InferenceCall } from '../core/inference-call.ts';
import type { RequestRecord } from '../logging/request-record.ts';
import { applySecretMappings, type MappedSettings, type SecretMappingResolver } from '../domain/providers/secret-mappings.ts';
import type { SavedProvider, SavedProviderRef, SavedProviders } from '../domain/providers/saved-providers.ts';
import { isExpired, neverExhausted, type ExhaustionCheck } from '../domain/providers/status.ts';
import { legacyCloudValues } from '../domain/virtual-keys/model-config.ts';
import type { ProviderAdapter } from '../providers/contract.ts';
import { integrationDeclarationOf } from '../providers/registry.ts';
import { customHeadersOf, withCustomHeaders } from './integration-headers.ts';
import { providerReference, type ProviderReference } from './provider-reference.ts';
import { customBaseUrl, resolveTarget, type ResolvedTarget, type TargetDeps } from './resolve-target.ts';

export interface SavedProviderDeps {
  savedProviders: SavedProviders;
  /** whether a provider's usage limit is used up (the budgets' counters); never, until they are wired */
  providerExhausted?: ExhaustionCheck;
  /** values of secret references; without it a record with secret_mappings is refused */
  secretMappings?: SecretMappingResolver;
  /** ms since the epoch, for expiry; Date.now unless a test pins it */
  clock?: () => number;
}

export interface AttemptTarget extends ResolvedTarget {
  /** the call to send (a `@slug/` prefix taken off its model) */
  call: InferenceCall;
  /** the saved provider the attempt uses, for the limits and the request log */
  savedProvider: SavedProviderRef | undefined;
}

async function usableProvider(reference: ProviderReference, principal: Principal | undefined, deps: SavedProviderDeps): Promise<SavedProvider> {
  const { slug, param } = reference;
  if (!principal) throw badRequest(`A saved provider ("@${slug}") needs an authenticated caller.`, 'provider_not_found', param);
  const saved = await deps.savedProviders.resolve(principal.organisationId, principal.workspaceId, slug);
  const label = `Provider "@${slug}"`;
  if (!saved) throw invalidParam(param, `${param} names no provider "@${slug}" in this workspace.`, 'provider_not_found');
  if (!saved.integration.active) {
    throw invalidParam(param, `${label} points at integration "${saved.integration.slug}", which is archived.`, 'integration_archived');
  }
  if (!saved.integration.usable) {
    throw new GatewayError(403, 'permission_error', `${label}: its integration "${saved.integration.slug}" is not enabled for this workspace.`, { code: 'integration_not_enabled', param });
  }
  const { expiresAt } = saved.ref;
  if (isExpired(expiresAt, (deps.clock ?? Date.now)())) {
    throw new GatewayError(401, 'authentication_error', `${label} expired at ${expiresAt!.toISOString()}.`, { code: 'provider_expired', param });
  }
  if (await (deps.providerExhausted ?? neverExhausted)(saved.ref)) {
    throw new GatewayError(429, 'rate_limit_error', `${label} has used up its usage limit (usage_limits); it is exhausted until reset or raised.`, { code: 'provider_exhausted', param });
  }
  return saved;
}

/** The client may not steer a saved credential to another host: neither a custom host nor cloud headers. */
function refuseClientDestination(headers: GatewayHeaders, slug: string): void {
  const reason = `cannot be combined with the saved provider "@${slug}": its host and settings are part of its integration.`;
  if (headers.customHost !== undefined) throw invalidParam('x-gateway-custom-host', `x-gateway-custom-host (or a config target's custom_host) ${reason}`, 'custom_host_not_allowed');
  const [first] = Object.keys(headers.cloud);
  if (first !== undefined) throw invalidParam(`x-gateway-${first}`, `x-gateway-${first} (or the config field that sets it) ${reason}`, 'cloud_settings_not_allowed');
}

/**
 * The adapter's cloud settings from the integration's configurations (by declared config field), its structured
 * settings for this model (which win: a deployment chosen by model over the integration's single one) and legacy fields.
 */
function cloudOf(adapter: ProviderAdapter, settings: MappedSettings, model: string | undefined): Record<string, string> {
  const declared = adapter.cloudSettings?.settings ?? [];
  const cloud: Record<string, string> = {};
  for (const { key, configField } of declared) {
    const value = configField === undefined ? undefined : settings.configurations[configField];
    if (typeof value === 'string' && value.length > 0) cloud[key] = value;
    else if (typeof value === 'object' && value !== null) cloud[key] = JSON.stringify(value);
  }
  for (const setting of integrationDeclarationOf(adapter.name)?.settings ?? []) {
    const stored = settings.configurations[setting.field];
    if (stored !== undefined && stored !== null) Object.assign(cloud, setting.cloudFor(stored, model));
  }
  return { ...cloud, ...legacyCloudValues(declared, settings.modelConfig, model) };
}

function modelOf(call: InferenceCall): string | undefined {
  const body = call.body;
  const model = typeof body === 'object' && body !== null && !Buffer.isBuffer(body) ? (body as Record<string, unknown>).model : undefined;
  return typeof model === 'string' ? model : undefined;
}

async function savedTarget(saved: SavedProvider, reference: ProviderReference, headers: GatewayHeaders, deps: TargetDeps & SavedProviderDeps): Promise<ResolvedTarget> {
  const { slug, param, call } = reference;
  const label = `Provider "@${slug}"`;
  refuseClientDestination(headers, slug);
  const adapter = deps.registry.get(saved.integration.aiProviderId);
  if (!adapter) throw invalidParam(param, `${label} uses "${saved.integration.aiProviderId}", which this gateway does not serve.`, 'unknown_provider');
  if (!adapter.capabilities.routes.has(call.route)) {
    throw invalidParam(param, `${label} (${adapter.name}) does not support this route (${call.route}).`, 'unsupported_route');
  }
  const { organisationId, workspaceId } = saved.ref;
  const settings = await applySecretMappings(
    { apiKey: saved.apiKey, configurations: saved.configurations, modelConfig: saved.modelConfig },
    saved.secretMappings,
    { organisationId, workspaceId, label, param },
    deps.secretMappings,
  );
  const cloud = cloudOf(adapter, settings, modelOf(call));
  const customHost = settings.configurations.custom_host;
  let baseUrl: string;
  if (typeof customHost === 'string' && customHost.length > 0) baseUrl = await customBaseUrl(customHost, deps);
  else if (adapter.baseUrlFor) baseUrl = adapter.baseUrlFor(cloud);
  else if (adapter.defaultBaseUrl) baseUrl = adapter.defaultBaseUrl;
  else throw invalidParam(param, `${label} (${adapter.name}) has no public endpoint and its integration sets no custom_host.`, 'custom_host_required');
  const isCustom = typeof customHost === 'string' && customHost.length > 0;
  return {
    adapter: withCustomHeaders(adapter, customHeadersOf(settings.configurations.custom_headers)),
    target: { provider: adapter.name, baseUrl, customHost: isCustom, apiKey: settings.apiKey ?? headers.providerToken, cloud },
  };
}

/** The target of one attempt: a saved provider when it names one, else the headers' (resolve-target.ts). */
export async function resolveAttemptTarget(
  headers: GatewayHeaders,
  call: InferenceCall,
  principal: Principal | undefined,
  deps: TargetDeps & SavedProviderDeps,
): Promise<AttemptTarget> {
  const reference = providerReference(headers, call);
  // fields written out, not spread: the spread showed in CPU profiles of the request path
  if (!reference) {
    const { adapter, target } = await resolveTarget(headers, call.route, deps);
    return { adapter, target, call, savedProvider: undefined };
  }
  const saved = await usableProvider(reference, principal, deps);
  const { adapter, target } = await savedTarget(saved, reference, headers, deps);
  return { adapter, target, call: reference.call, savedProvider: saved.ref };
}

/** The request log's provider_slug and integration_id: the saved provider of the latest attempt, or none. */
export function noteSavedProvider(record: RequestRecord | undefined, savedProvider: SavedProviderRef | undefined): void {
  if (!record) return;
  record.providerSlug = savedProvider?.slug;
  record.integrationId = savedProvider?.integrationId;
}
