/** The x-gateway-azure-* settings Azure OpenAI reads (request.ts, auth.ts, response.ts and stream.ts say how). */
import type { CloudSettings } from '../contract.ts';

export const azureOpenAiCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-azure-',
  settings: [
    { key: 'azure-resource-name', configField: 'azure_resource_name' },
    { key: 'azure-deployment-id', configField: 'azure_deployment_id' },
    { key: 'azure-api-version', configField: 'azure_api_version' },
    { key: 'azure-model-name', configField: 'azure_model_name' },
    // `entra` makes the bearer an Entra token; the token itself is the Authorization header, never a setting
    { key: 'azure-auth-mode', configField: 'azure_auth_mode' },
  ],
};
