/**
 * The x-gateway-azure-* settings Azure AI model inference reads: its own api-version and extra-parameters
 * (request.ts), and the resource name, auth mode and model name it shares with Azure OpenAI.
 */
import { azureEntraSettings } from '../azure-openai/cloud-settings.ts';
import type { CloudSettings } from '../contract.ts';

export const azureAiInferenceCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-azure-',
  settings: [
    { key: 'azure-resource-name', configField: 'azure_resource_name' },
    { key: 'azure-api-version', configField: 'azure_api_version' },
    { key: 'azure-model-name', configField: 'azure_model_name' },
    { key: 'azure-auth-mode', configField: 'azure_auth_mode' },
    // a per-request choice of what the service does with unknown parameters: a header only
    { key: 'azure-extra-parameters' },
    ...azureEntraSettings,
  ],
};
