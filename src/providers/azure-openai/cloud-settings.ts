/** The x-gateway-azure-* settings Azure OpenAI reads (request.ts, auth.ts, entra.ts, response.ts and stream.ts say how). */
import type { CloudSetting, CloudSettings } from '../contract.ts';

/**
 * Microsoft Entra ID client credentials (entra.ts) and the managed identity's client id (api-surface §3.3; managed
 * identity itself is refused: auth.ts). Shared with Azure AI inference, which authenticates the same way.
 */
export const azureEntraSettings: readonly CloudSetting[] = [
  { key: 'azure-entra-tenant-id', configField: 'azure_entra_tenant_id' },
  { key: 'azure-entra-client-id', configField: 'azure_entra_client_id' },
  { key: 'azure-entra-client-secret', configField: 'azure_entra_client_secret', secret: true },
  { key: 'azure-managed-client-id', configField: 'azure_managed_client_id' },
  // a sovereign cloud's authority (login.microsoftonline.us ...); checked by the SSRF guard like a custom host
  { key: 'azure-authority-host', configField: 'azure_authority_host' },
];

export const azureOpenAiCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-azure-',
  settings: [
    { key: 'azure-resource-name', configField: 'azure_resource_name' },
    { key: 'azure-deployment-id', configField: 'azure_deployment_id' },
    { key: 'azure-api-version', configField: 'azure_api_version' },
    { key: 'azure-model-name', configField: 'azure_model_name' },
    // `entra` makes the bearer an Entra token; the token itself is the Authorization header, never a setting
    { key: 'azure-auth-mode', configField: 'azure_auth_mode' },
    ...azureEntraSettings,
  ],
};
