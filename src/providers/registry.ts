/** Provider name -> adapter. Adding a provider is one folder and one line here. */
import type { ProviderAdapter } from './contract.ts';
import { createOpenAiCompatibleAdapter } from './openai-compatible/base.ts';
import { openAiCompatibleVendors } from './openai-compatible/vendors.ts';

export type ProviderRegistry = ReadonlyMap<string, ProviderAdapter>;

export function createProviderRegistry(): ProviderRegistry {
  const adapters: ProviderAdapter[] = [...openAiCompatibleVendors.map(createOpenAiCompatibleAdapter)];
  return new Map(adapters.map((adapter) => [adapter.name, adapter]));
}
