/**
 * `azure_deployment_config` (api-surface §3.3 AzureOpenAIConfiguration): several deployments behind one Azure
 * OpenAI integration, each `{alias, azure_deployment_name, azure_api_version, azure_model_slug, is_default}`. The
 * request's `model` picks one: the deployment whose alias is the model, else whose azure_model_slug is, else whose
 * deployment name is; with no match, the `is_default` one; with no default, the only one. A model that fits none
 * of several deployments is a 400 naming `model` and the aliases, rather than a guess billed to the wrong model.
 * The chosen one fills the deployment, api-version and model-name settings (request.ts, response.ts).
 */
import { invalidParam } from '../../core/errors.ts';
import type { IntegrationSetting } from '../integration-settings.ts';
import { isRecord } from '../shared/json.ts';

export const DEPLOYMENT_CONFIG_FIELD = 'azure_deployment_config';
const MAX_DEPLOYMENTS = 100;
const MAX_API_VERSION = 30;
const MAX_NAME = 255;
const KNOWN = new Set(['alias', 'azure_deployment_name', 'azure_api_version', 'azure_model_slug', 'is_default']);

export interface AzureDeployment {
  alias?: string;
  azure_deployment_name: string;
  azure_api_version: string;
  azure_model_slug: string;
  is_default: boolean;
}

function text(entry: Record<string, unknown>, name: string, param: string, max: number, required: boolean): string | undefined {
  const value = entry[name];
  if (value === undefined || value === null) {
    if (required) throw invalidParam(`${param}.${name}`, `${param}.${name} is required.`);
    return undefined;
  }
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max) {
    throw invalidParam(`${param}.${name}`, `${param}.${name} must be a non-empty string of at most ${max} characters.`);
  }
  return value;
}

export function parseDeploymentConfig(value: unknown, param: string): AzureDeployment[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_DEPLOYMENTS) {
    throw invalidParam(param, `${param} must be an array of 1 to ${MAX_DEPLOYMENTS} deployments.`);
  }
  const aliases = new Set<string>();
  const deployments = value.map((entry, index): AzureDeployment => {
    const at = `${param}[${index}]`;
    if (!isRecord(entry)) throw invalidParam(at, `${at} must be an object.`);
    const unknown = Object.keys(entry).find((name) => !KNOWN.has(name));
    if (unknown !== undefined) throw invalidParam(`${at}.${unknown}`, `${at}.${unknown} is not a deployment field; they are: ${[...KNOWN].join(', ')}.`);
    const isDefault = entry.is_default ?? false;
    if (typeof isDefault !== 'boolean') throw invalidParam(`${at}.is_default`, `${at}.is_default must be a boolean.`);
    const alias = text(entry, 'alias', at, MAX_NAME, false);
    if (alias !== undefined) {
      if (aliases.has(alias)) throw invalidParam(`${at}.alias`, `${at}.alias "${alias}" names another deployment already.`);
      aliases.add(alias);
    }
    return {
      ...(alias !== undefined ? { alias } : {}),
      azure_deployment_name: text(entry, 'azure_deployment_name', at, MAX_NAME, true)!,
      azure_api_version: text(entry, 'azure_api_version', at, MAX_API_VERSION, true)!,
      azure_model_slug: text(entry, 'azure_model_slug', at, MAX_NAME, true)!,
      is_default: isDefault,
    };
  });
  if (deployments.filter((deployment) => deployment.is_default).length > 1) {
    throw invalidParam(param, `${param} may mark one deployment is_default, not several.`);
  }
  return deployments;
}

/** The deployment a request for `model` uses (see the file's comment); a 400 naming `model` when none fits. */
export function chooseDeployment(deployments: readonly AzureDeployment[], model: string | undefined): AzureDeployment {
  const by = (pick: (deployment: AzureDeployment) => string | undefined) => (model === undefined ? undefined : deployments.find((deployment) => pick(deployment) === model));
  const chosen =
    by((deployment) => deployment.alias) ??
    by((deployment) => deployment.azure_model_slug) ??
    by((deployment) => deployment.azure_deployment_name) ??
    deployments.find((deployment) => deployment.is_default) ??
    (deployments.length === 1 ? deployments[0] : undefined);
  if (chosen) return chosen;
  const names = deployments.map((deployment) => deployment.alias ?? deployment.azure_model_slug).join(', ');
  throw invalidParam('model', `The model "${model ?? ''}" names none of this integration's Azure deployments (${names}), and none is is_default.`, 'unknown_deployment');
}

export const azureDeploymentConfigSetting: IntegrationSetting = {
  field: DEPLOYMENT_CONFIG_FIELD,
  parse: parseDeploymentConfig,
  cloudFor(stored, model) {
    // stored through parse: a list of checked deployments
    const chosen = chooseDeployment(parseDeploymentConfig(stored, DEPLOYMENT_CONFIG_FIELD), model);
    return { 'azure-deployment-id': chosen.azure_deployment_name, 'azure-api-version': chosen.azure_api_version, 'azure-model-name': chosen.azure_model_slug };
  },
};
