/**
 * The OpenAI-compatible family as data: name, default base URL, auth header style and the routes served.
 * Local servers (ollama, lm-studio, vllm) have no default: they need x-gateway-custom-host, which goes
 * through the SSRF guard, so naming them can never reach the gateway's own loopback by accident.
 * They serve the OpenAI API under /v1, and their custom host may be the bare origin (the form the reference API
 * documents for Ollama, http://localhost:11434) or already end in /v1: both reach /v1/... The hosted vendors take
 * a custom host as given, version included, like their default base URL.
 */
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { withVersion } from '../shared/api-version.ts';
import { upstreamPath, type OpenAiCompatibleVendor } from './base.ts';
import { openAiCloudSettings, openAiOrganizationHeaders } from './openai-organization.ts';
import { normaliseRerank } from './rerank.ts';

const CHAT_FAMILY: readonly RouteKind[] = ['chat', 'completions', 'embeddings', 'models'];
const OPENAI_ROUTES: readonly RouteKind[] = [
  ...CHAT_FAMILY,
  'responses.create',
  'responses.get',
  'responses.delete',
  'responses.input_items',
];

/** A local server's URL: its base with /v1 unless the base already names a version. */
function localServerUrl(call: InferenceCall, target: ProviderTarget): string {
  return `${withVersion(target.baseUrl, 'v1')}${upstreamPath(call)}${call.query ? `?${call.query}` : ''}`;
}

export const openAiCompatibleVendors: readonly OpenAiCompatibleVendor[] = [
  // https://platform.openai.com/docs/api-reference
  { name: 'openai', defaultBaseUrl: 'https://api.openai.com/v1', auth: 'bearer', routes: OPENAI_ROUTES, headers: openAiOrganizationHeaders, cloudSettings: openAiCloudSettings },
  // https://console.groq.com/docs/openai ("not supported ... will result in a 400 error")
  {
    name: 'groq',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    auth: 'bearer',
    routes: ['chat', 'models'],
    deviations: { chat: { unsupported: ['logprobs', 'top_logprobs', 'logit_bias'] } },
  },
  // https://docs.together.ai/docs/openai-api-compatibility
  { name: 'together-ai', defaultBaseUrl: 'https://api.together.xyz/v1', auth: 'bearer', routes: [...CHAT_FAMILY, 'rerank'], transforms: { rerank: normaliseRerank } },
  // https://docs.fireworks.ai/tools-sdks/openai-compatibility
  { name: 'fireworks-ai', defaultBaseUrl: 'https://api.fireworks.ai/inference/v1', auth: 'bearer', routes: CHAT_FAMILY },
  // https://api-docs.deepseek.com/
  { name: 'deepseek', defaultBaseUrl: 'https://api.deepseek.com/v1', auth: 'bearer', routes: ['chat', 'completions', 'models'] },
  // https://docs.mistral.ai/api/ (the seed is called random_seed; unknown fields are rejected)
  {
    name: 'mistral-ai',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    auth: 'bearer',
    routes: ['chat', 'embeddings', 'models'],
    deviations: { chat: { unsupported: ['logit_bias'], renamed: { seed: 'random_seed' } } },
  },
  // https://openrouter.ai/docs/api-reference/overview
  { name: 'openrouter', defaultBaseUrl: 'https://openrouter.ai/api/v1', auth: 'bearer', routes: ['chat', 'completions', 'models'] },
  // https://docs.perplexity.ai/api-reference/chat-completions
  { name: 'perplexity-ai', defaultBaseUrl: 'https://api.perplexity.ai', auth: 'bearer', routes: ['chat'] },
  // https://docs.x.ai/docs/api-reference
  { name: 'x-ai', defaultBaseUrl: 'https://api.x.ai/v1', auth: 'bearer', routes: ['chat', 'completions', 'embeddings', 'models'] },
  // https://deepinfra.com/docs/openai_api
  { name: 'deepinfra', defaultBaseUrl: 'https://api.deepinfra.com/v1/openai', auth: 'bearer', routes: CHAT_FAMILY },
  // https://inference-docs.cerebras.ai/openai ("currently not supported")
  {
    name: 'cerebras',
    defaultBaseUrl: 'https://api.cerebras.ai/v1',
    auth: 'bearer',
    routes: ['chat', 'completions', 'models'],
    deviations: { chat: { unsupported: ['frequency_penalty', 'presence_penalty', 'logit_bias', 'parallel_tool_calls', 'service_tier'] } },
  },
  // https://github.com/ollama/ollama/blob/main/docs/openai.md
  { name: 'ollama', defaultBaseUrl: undefined, url: localServerUrl, auth: 'bearer', routes: CHAT_FAMILY },
  // https://lmstudio.ai/docs/app/api/endpoints/openai
  { name: 'lm-studio', defaultBaseUrl: undefined, url: localServerUrl, auth: 'bearer', routes: CHAT_FAMILY },
  // https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
  { name: 'vllm', defaultBaseUrl: undefined, url: localServerUrl, auth: 'bearer', routes: [...CHAT_FAMILY, 'rerank'], transforms: { rerank: normaliseRerank } },
  // https://api.jina.ai/redoc: OpenAI-compatible embeddings, a rerank of its own shape
  { name: 'jina', defaultBaseUrl: 'https://api.jina.ai/v1', auth: 'bearer', routes: ['embeddings', 'rerank'], transforms: { rerank: normaliseRerank } },
];
