/**
 * Rerank on Azure AI Foundry: Cohere rerank deployments speak Cohere's v2 rerank
 * (https://learn.microsoft.com/en-us/azure/ai-foundry/how-to/deploy-models-cohere-rerank,
 * https://docs.cohere.com/reference/rerank), so the Cohere adapter's mapping is reused; what is Azure's:
 * - the route: beside a Foundry resource's /models endpoint, /providers/cohere/v2/rerank
 *   (https://{resource}.services.ai.azure.com/providers/cohere/v2/rerank); on any other base (a serverless
 *   deployment host given as x-gateway-custom-host) {base}/v2/rerank. No api-version: Cohere's route takes none;
 * - the model: the deployment's model name loses its vendor prefix and dot (`cohere.rerank-v3.5` -> `rerank-v3.5`).
 *   A prefix is a leading name followed by a dot and a letter, so version dots (`rerank-v3.5`) are never cut;
 * - credentials: as for the other routes (`api-key`, or a bearer in Entra mode).
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { recordOf } from '../shared/json.ts';
import { azureAuthStyle } from '../azure-openai/auth.ts';
import { toCohereRerank, toRerankResponse } from '../cohere/rerank.ts';

const VENDOR_PREFIX = /^[A-Za-z][A-Za-z0-9_-]*\.(?=[A-Za-z])/;

export function stripVendorPrefix(model: string): string {
  return model.replace(VENDOR_PREFIX, '');
}

export function rerankUrl(baseUrl: string): string {
  return baseUrl.endsWith('/models') ? `${baseUrl.slice(0, -'/models'.length)}/providers/cohere/v2/rerank` : `${baseUrl}/v2/rerank`;
}

export function buildRerankRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
  const input = recordOf(call.body);
  const model = typeof input.model === 'string' ? stripVendorPrefix(input.model) : input.model;
  const { body, warnings } = toCohereRerank({ ...input, model });
  return {
    method: 'POST',
    url: rerankUrl(target.baseUrl),
    headers: { ...authHeaders(azureAuthStyle(target), target.apiKey), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    warnings,
  };
}

/** Reports the model as the client named it (prefix included) and this provider's name. */
export function normaliseRerank(json: unknown, call: InferenceCall, target: ProviderTarget): RerankResponse {
  return toRerankResponse(json, call.body, target.provider);
}
