/**
 * Azure OpenAI (https://learn.microsoft.com/en-us/azure/ai-services/openai/reference): OpenAI's wire format behind
 * Azure's URLs and credentials, so the OpenAI-compatible base does the work and this adapter adds the Azure hooks:
 * - where: deployment path and api-version, or the v1 API (request.ts);
 * - auth: the client's bearer token is sent as `api-key`, or kept as a bearer in Entra mode (auth.ts);
 * - answers: Azure's content-filter annotations are kept, bytes untouched (response.ts); streams drop Azure's
 *   choice-less first chunk and add missing deltas (stream.ts).
 * Provider errors (content_filter included) already have OpenAI's error shape and pass as Azure wrote them.
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { createOpenAiCompatibleAdapter } from '../openai-compatible/base.ts';
import { azureAuthStyle } from './auth.ts';
import { azureResourceHooks } from './files.ts';
import { azureOpenAiBaseUrl, azureOpenAiUrl, v1Body } from './request.ts';
import { reportModel } from './response.ts';
import { createAzureStreamDecoder } from './stream.ts';

const base = createOpenAiCompatibleAdapter({
  name: 'azure-openai',
  defaultBaseUrl: undefined,
  auth: azureAuthStyle,
  routes: ['chat', 'completions', 'embeddings'],
 
 
 
  url: azureOpenAiUrl,
  transforms: { chat: reportModel('choices'), completions: reportModel('choices'), embeddings: reportModel('data') },
});

export const azureOpenAiAdapter: ProviderAdapter = {
  ...base,
  baseUrlFor: azureOpenAiBaseUrl,
  buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
    const request = base.buildRequest(call, target);
    const body = v1Body(call, target);
    return body === undefined ? request : { ...request, body, headers: { ...request.headers, 'content-type': 'application/json' } };
  },
  streamDecoder: createAzureStreamDecoder,
  resources: azureResourceHooks,
};
