/** Provider name -> adapter. Adding a provider is one folder and one line here. */
import { anthropicAdapter } from './anthropic/index.ts';
import { bedrockAdapter } from './bedrock/index.ts';
import { azureAiInferenceAdapter } from './azure-ai-inference/index.ts';
import { azureOpenAiAdapter } from './azure-openai/index.ts';
import { createCohereAdapter } from './cohere/index.ts';
import type { ProviderAdapter } from './contract.ts';
import { createGoogleAdapter } from './google/index.ts';
import { createVertexAdapter } from './vertex-ai/index.ts';
import { createPineconeAdapter } from './pinecone/index.ts';
import { createVoyageAdapter } from './voyage/index.ts';
import { createOpenAiCompatibleAdapter } from './openai-compatible/base.ts';
import { openAiCompatibleVendors } from './openai-compatible/vendors.ts';

export type ProviderRegistry = ReadonlyMap<string, ProviderAdapter>;

export function createProviderRegistry(): ProviderRegistry {
  const adapters: ProviderAdapter[] = [...openAiCompatibleVendors.map(createOpenAiCompatibleAdapter), anthropicAdapter, bedrockAdapter, azureOpenAiAdapter, azureAiInferenceAdapter];
  adapters.push(createCohereAdapter(), createVoyageAdapter(), createPineconeAdapter());
  adapters.push(createGoogleAdapter(), createVertexAdapter());
  return new Map(adapters.map((adapter) => [adapter.name, adapter]));
}

/** The name of every provider the registry builds: what a catalog entry or a config may name. */
export function providerNames(): string[] {
  return [...createProviderRegistry().keys()];
}
