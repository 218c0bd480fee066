/** Provider name -> adapter. Adding a provider is one folder and one line here. */
import { anthropicAdapter } from './anthropic/index.ts';
import { bedrockAdapter } from './bedrock/index.ts';
import { bedrockCloudSettings } from './bedrock/cloud-settings.ts';
import { azureAiInferenceAdapter } from './azure-ai-inference/index.ts';
import { azureAiInferenceCloudSettings } from './azure-ai-inference/cloud-settings.ts';
import { azureOpenAiAdapter } from './azure-openai/index.ts';
import { azureOpenAiCloudSettings } from './azure-openai/cloud-settings.ts';
import { createEntraAuth, withEntraAuth } from './azure-openai/entra.ts';
import { azureAiInferenceIntegration, azureOpenAiIntegration } from './azure-openai/integration.ts';
import { assumeRoleSettings, bedrockIntegration, createAssumedRoles, withAssumedRole } from './bedrock/assume-role.ts';
import type { IntegrationDeclaration } from './integration-settings.ts';
import { createCohereAdapter } from './cohere/index.ts';
import type { CloudSettings, ProviderAdapter } from './contract.ts';
import { createGoogleAdapter } from './google/index.ts';
import { createVertexAdapter } from './vertex-ai/index.ts';
import { vertexCloudSettings } from './vertex-ai/cloud-settings.ts';
import { createPineconeAdapter } from './pinecone/index.ts';
import { createVoyageAdapter } from './voyage/index.ts';
import { createOpenAiCompatibleAdapter } from './openai-compatible/base.ts';
import { openAiCompatibleVendors } from './openai-compatible/vendors.ts';

export type ProviderRegistry = ReadonlyMap<string, ProviderAdapter>;

/** An adapter with the cloud settings its folder declares in cloud-settings.ts. */
function withCloud(adapter: ProviderAdapter, cloudSettings: CloudSettings): ProviderAdapter {
  return { ...adapter, cloudSettings };
}

export interface RegistryOptions {
  /** ms since the epoch, for the expiry of the credentials the adapters obtain (Entra tokens, assumed roles) */
  now?: () => number;
}

export function createProviderRegistry(options: RegistryOptions = {}): ProviderRegistry {
  const now = options.now ?? Date.now;
  // each registry holds its own obtained credentials: two gateways in one process never share them
  const entra = createEntraAuth({ now });
  const adapters: ProviderAdapter[] = [...openAiCompatibleVendors.map(createOpenAiCompatibleAdapter), anthropicAdapter];
  const bedrockSettings = { ...bedrockCloudSettings, settings: [...bedrockCloudSettings.settings, ...assumeRoleSettings] };
  adapters.push(withCloud(withAssumedRole(bedrockAdapter, createAssumedRoles({ now })), bedrockSettings));
  adapters.push(withCloud(withEntraAuth(azureOpenAiAdapter, entra), azureOpenAiCloudSettings));
  adapters.push(withCloud(withEntraAuth(azureAiInferenceAdapter, entra), azureAiInferenceCloudSettings));
  adapters.push(createCohereAdapter(), createVoyageAdapter(), createPineconeAdapter());
  adapters.push(createGoogleAdapter(), withCloud(createVertexAdapter(), vertexCloudSettings));
  return new Map(adapters.map((adapter) => [adapter.name, adapter]));
}

/** What each provider reads from an integration beyond its cloud settings (integration-settings.ts). */
const integrationDeclarations: ReadonlyMap<string, IntegrationDeclaration> = new Map([
  [azureOpenAiAdapter.name, azureOpenAiIntegration],
  [azureAiInferenceAdapter.name, azureAiInferenceIntegration],
  [bedrockAdapter.name, bedrockIntegration],
]);

export function integrationDeclarationOf(providerName: string): IntegrationDeclaration | undefined {
  return integrationDeclarations.get(providerName);
}

/** The name of every provider the registry builds: what a catalog entry or a config may name. */
export function providerNames(): string[] {
  return [...createProviderRegistry().keys()];
}

/** The cloud settings of every adapter that declares some, in registry order (two adapters may share a prefix). */
export function cloudSettingsOf(registry: ProviderRegistry): CloudSettings[] {
  return [...registry.values()].flatMap((adapter) => (adapter.cloudSettings ? [adapter.cloudSettings] : []));
}

/**
 * The cloud settings of every provider the registry builds: what the routing config's grammar accepts and what a
 * stored config seals, both fixed when their modules load (the OpenAPI document publishes the grammar).
 */
export function registeredCloudSettings(): CloudSettings[] {
  return cloudSettingsOf(createProviderRegistry());
}
