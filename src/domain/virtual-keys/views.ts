/** Virtual keys as the legacy API shows them (api-surface §3.2 VirtualKey): the key itself never, only its mask. */
import { storedSecretMappings } from '../providers/secret-mappings.ts';
import type { ProviderWithIntegration } from '../providers/read-providers.ts';
import type { ExhaustionCheck } from '../providers/status.ts';
import { providerFields } from '../providers/views.ts';

export async function virtualKeyView({ provider, integration }: ProviderWithIntegration, now: number, isExhausted: ExhaustionCheck) {
  return {
    ...(await providerFields(provider, now, isExhausted)),
    provider: integration?.aiProviderId ?? null,
    masked_key: integration?.maskedKey ?? null,
    model_config: provider.modelConfig,
    secret_mappings: storedSecretMappings(provider.secretMappings),
    object: 'virtual-key' as const,
  };
}
