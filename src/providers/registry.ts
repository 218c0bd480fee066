/** Provider name -> adapter. Adding a provider is one folder and one line here. */
import { anthropicAdapter } from './anthropic/index.ts';
import { bedrockAdapter } from './bedrock/index.ts';
import { bedrockCloudSettings } from './bedrock/cloud-settings.ts';
import { azureAiInferenceAdapter } from './azure-ai-inference/index.ts';
import { azureAiInferenceCloudSettings } from './azure-ai-inference/cloud-settings.ts';
import { azureOpenAiAdapter } from './azure-openai/index.ts';
import { azureOpenAiCloudSettings } from './azure-openai/cloud-settings.ts';
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

export function createProviderRegistry(): ProviderRegistry {
  const adapters: ProviderAdapter[] = [...openAiCompatibleVendors.map(createOpenAiCompatibleAdapter), anthropicAdapter];
  adapters.push(withCloud(bedrockAdapter, bedrockCloudSettings));
  adapters.push(withCloud(azureOpenAiAdapter, azureOpenAiCloudSettings));
  adapters.push(withCloud(azureAiInferenceAdapter, azureAiInferenceCloudSettings));
  adapters.push(createCohereAdapter(), createVoyageAdapter(), createPineconeAdapter());
  adapters.push(createGoogleAdapter(), withCloud(createVertexAdapter(), vertexCloudSettings));
  return new Map(adapters.map((adapter) => [adapter.name, adapter]));
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
