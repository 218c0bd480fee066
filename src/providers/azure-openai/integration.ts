/**
 * What an Azure integration holds beyond the x-gateway-azure-* settings (integration-settings.ts): the deployment
 * list (deployment-config.ts) and the rules of `azure_auth_mode` (api-surface §3.3): `default` needs the key,
 * `entra` the three client credentials, and `managed` is refused when saved, since it cannot work here (auth.ts).
 */
import { invalidParam } from '../../core/errors.ts';
import type { IntegrationDeclaration, PresentConfigurations } from '../integration-settings.ts';
import { azureDeploymentConfigSetting } from './deployment-config.ts';

const MODES = ['default', 'api-key', 'entra', 'managed'];
const ENTRA_FIELDS = ['azure_entra_tenant_id', 'azure_entra_client_id', 'azure_entra_client_secret'];

export function checkAzureAuth(configurations: PresentConfigurations): void {
  const param = 'configurations.azure_auth_mode';
  const mode = configurations.value('azure_auth_mode');
  if (mode === undefined) return;
  if (typeof mode !== 'string' || !MODES.includes(mode)) throw invalidParam(param, `${param} must be one of ${MODES.join(', ')}.`);
  if (mode === 'managed') {
    throw invalidParam(
      param,
      `${param} "managed" needs an Azure managed identity (the instance metadata service), which this gateway has no access to: use "entra" with azure_entra_tenant_id, azure_entra_client_id and azure_entra_client_secret, or "default" with the key.`,
      'azure_managed_identity_unavailable',
    );
  }
  if (mode === 'entra') {
    const missing = ENTRA_FIELDS.find((field) => !configurations.has(field));
    if (missing) throw invalidParam(`configurations.${missing}`, `${param} "entra" needs ${ENTRA_FIELDS.join(', ')}: configurations.${missing} is missing.`, 'missing_configuration');
  }
}

export const azureOpenAiIntegration: IntegrationDeclaration = {
  settings: [azureDeploymentConfigSetting],
  urlFields: ['azure_authority_host'],
  check: checkAzureAuth,
};

export const azureAiInferenceIntegration: IntegrationDeclaration = { settings: [], urlFields: ['azure_authority_host'], check: checkAzureAuth };
