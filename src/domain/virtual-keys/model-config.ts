/**
 * A virtual key's legacy model settings (`apiVersion`, `resourceName`, `deploymentName`, `deploymentConfig`) as the
 * cloud settings its adapter reads. Nothing here names a cloud: a camelCase field fills the adapter's setting whose
 * key ends with the same words (`resourceName` -> `<cloud>-resource-name`); a `...Name` field may also fill a
 * `...-id` key (a deployment's name is its id in the URL).
 */
import type { CloudSetting } from '../../providers/contract.ts';
import type { DeploymentConfig, LegacyModelFields } from './inputs.ts';

const LEGACY_FIELDS = ['apiVersion', 'resourceName', 'deploymentName'] as const;

/** What a virtual key keeps in `model_config`: the legacy fields it was given. */
export function legacyModelConfig(fields: LegacyModelFields, previous: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const config: Record<string, unknown> = { ...previous };
  for (const name of [...LEGACY_FIELDS, 'deploymentConfig'] as const) {
    const value = fields[name];
    if (value === undefined) continue;
    if (value === null) delete config[name];
    else config[name] = value;
  }
  return config;
}

const kebab = (field: string) => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function settingFor(settings: readonly CloudSetting[], field: string): string | undefined {
  const words = kebab(field);
  const endings = [`-${words}`, ...(words.endsWith('-name') ? [`-${words.slice(0, -'-name'.length)}-id`] : [])];
  for (const ending of endings) {
    const found = settings.find((setting) => setting.key.endsWith(ending));
    if (found) return found.key;
  }
  return undefined;
}

function deployments(value: unknown): DeploymentConfig[] {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is DeploymentConfig => typeof entry === 'object' && entry !== null && typeof (entry as DeploymentConfig).deploymentName === 'string');
}

/** The deployment a request of `model` uses: the one aliased to the model, else the default one, else the first. */
export function chosenDeployment(value: unknown, model: string | undefined): DeploymentConfig | undefined {
  const list = deployments(value);
  return list.find((entry) => model !== undefined && entry.alias === model) ?? list.find((entry) => entry.is_default === true) ?? list[0];
}

export function legacyCloudValues(settings: readonly CloudSetting[], modelConfig: Readonly<Record<string, unknown>>, model: string | undefined): Record<string, string> {
  const chosen = chosenDeployment(modelConfig.deploymentConfig, model);
  const fields: Record<string, unknown> = { ...modelConfig, ...(chosen ? { apiVersion: chosen.apiVersion, deploymentName: chosen.deploymentName } : {}) };
  const cloud: Record<string, string> = {};
  for (const field of LEGACY_FIELDS) {
    const value = fields[field];
    const key = typeof value === 'string' && value.length > 0 ? settingFor(settings, field) : undefined;
    if (key !== undefined) cloud[key] = value as string;
  }
  return cloud;
}
