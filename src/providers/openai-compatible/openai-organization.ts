/**
 * OpenAI's organization and project (https://platform.openai.com/docs/api-reference/authentication): a key that
 * belongs to several organizations or projects says which one a request counts against with the
 * `OpenAI-Organization` and `OpenAI-Project` headers. They come from x-gateway-openai-organization and
 * x-gateway-openai-project, or from an integration's `openai_organization` and `openai_project` (api-surface §3.3
 * OpenAIConfiguration).
 */
import type { CloudSettings, ProviderTarget } from '../contract.ts';

export const openAiCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-openai-',
  settings: [
    { key: 'openai-organization', configField: 'openai_organization' },
    { key: 'openai-project', configField: 'openai_project' },
  ],
};

export function openAiOrganizationHeaders(target: ProviderTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  const organization = target.cloud['openai-organization'];
  const project = target.cloud['openai-project'];
  if (organization) headers['openai-organization'] = organization;
  if (project) headers['openai-project'] = project;
  return headers;
}
