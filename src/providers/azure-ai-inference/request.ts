/**
 * Where an Azure AI model inference (Foundry Models) call goes
 * (https://learn.microsoft.com/en-us/rest/api/aifoundry/model-inference/):
 * base URL https://{x-gateway-azure-resource-name}.services.ai.azure.com/models, or x-gateway-custom-host;
 * {base}/chat/completions and {base}/embeddings (and pass-through paths such as /images/embeddings, /info) with
 * ?api-version={x-gateway-azure-api-version, else DEFAULT_API_VERSION}. The body's `model` names the deployment.
 * `extra-parameters` tells the service what to do with parameters its REST API does not define (stream_options,
 * parallel_tool_calls, a model's own options ...): its default, `error`, would refuse ordinary OpenAI requests, so
 * the gateway sends `pass-through` (the model decides) unless x-gateway-azure-extra-parameters says otherwise.
 */
import { invalidParam } from '../../core/errors.ts';
import type { InferenceCall, ProviderTarget } from '../contract.ts';
import { upstreamPath } from '../openai-compatible/base.ts';
import { resourceName, withApiVersion } from '../azure-openai/request.ts';

/** The model inference API's version (the only one it has published). */
export const DEFAULT_API_VERSION = '2024-05-01-preview';

const EXTRA_PARAMETERS_HEADER = 'x-gateway-azure-extra-parameters';
const EXTRA_PARAMETERS = new Set(['pass-through', 'drop', 'error']);

export function foundryBaseUrl(cloud: Readonly<Record<string, string>>): string {
  return `https://${resourceName(cloud, 'Azure AI inference')}.services.ai.azure.com/models`;
}

export function foundryUrl(call: InferenceCall, target: ProviderTarget): string {
  const version = target.cloud['azure-api-version'] ?? DEFAULT_API_VERSION;
  return `${target.baseUrl}${upstreamPath(call)}?${withApiVersion(call.query, version)}`;
}

export function foundryHeaders(target: ProviderTarget): Record<string, string> {
  const value = target.cloud['azure-extra-parameters']?.toLowerCase() ?? 'pass-through';
  if (!EXTRA_PARAMETERS.has(value)) {
    throw invalidParam(EXTRA_PARAMETERS_HEADER, `Header ${EXTRA_PARAMETERS_HEADER} must be "pass-through", "drop" or "error", got "${value}".`, 'invalid_header');
  }
  return { 'extra-parameters': value };
}
