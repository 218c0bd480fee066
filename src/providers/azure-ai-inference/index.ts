/**
 * Azure AI model inference / Foundry Models (https://learn.microsoft.com/en-us/rest/api/aifoundry/model-inference/):
 * chat and embeddings in OpenAI's wire format, so the OpenAI-compatible base does the work with Azure's URL,
 * api-version and `extra-parameters` (request.ts) and Azure's credentials (shared with azure-openai: `api-key`, or
 * a bearer in Entra mode). Answers and streams get the same Azure smoothing as Azure OpenAI (content-filter
 * annotations kept, choice-less first stream chunk held back). Rerank goes to Cohere rerank deployments (rerank.ts).
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { createOpenAiCompatibleAdapter } from '../openai-compatible/base.ts';
import { azureAuthStyle } from '../azure-openai/auth.ts';
import { reportModel } from '../azure-openai/response.ts';
import { createAzureStreamDecoder } from '../azure-openai/stream.ts';
import { buildRerankRequest, normaliseRerank } from './rerank.ts';
import { foundryBaseUrl, foundryHeaders, foundryUrl } from './request.ts';

const base = createOpenAiCompatibleAdapter({
  name: 'azure-ai-inference',
  defaultBaseUrl: undefined,
  auth: azureAuthStyle,
  routes: ['chat', 'embeddings', 'rerank'],
 
 
  url: foundryUrl,
  headers: foundryHeaders,
  transforms: { chat: reportModel('choices'), embeddings: reportModel('data'), rerank: normaliseRerank },
});

export const azureAiInferenceAdapter: ProviderAdapter = {
  ...base,
  baseUrlFor: foundryBaseUrl,
  buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
    return call.route === 'rerank' ? buildRerankRequest(call, target) : base.buildRequest(call, target);
  },
  streamDecoder: createAzureStreamDecoder,
};
