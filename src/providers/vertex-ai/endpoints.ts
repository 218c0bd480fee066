/**
 * Vertex AI URLs from the cloud headers.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference (publishers/google/models/...)
 * https://cloud.google.com/vertex-ai/generative-ai/docs/learn/locations#global-endpoint (the `global` host)
 * https://cloud.google.com/generative-ai-app-builder/docs/ranking (the Discovery Engine ranking API)
 *
 * Without a custom host the base URL is `https://{host}/v1/projects/{project}/locations/{region}`. A custom host
 * (x-gateway-custom-host) stands for the service root: the bare origin, the form the reference API documents
 * (`https://{region}-aiplatform.googleapis.com`), or a proxy prefix gets `/v1`; a root that already names a version
 * (`/v1`, `/v1beta1`) is kept as given (rule in ../shared/api-version.ts). The project and region still come from
 * the x-gateway-vertex-* headers, so the path the upstream sees is the real one.
 */
import { invalidParam } from '../../core/errors.ts';
import type { ProviderTarget } from '../contract.ts';
import { withVersion } from '../shared/api-version.ts';

const PROJECT = /^[a-z0-9][a-z0-9.:-]{0,99}$/i;
const REGION = /^[a-z0-9-]{1,63}$/;
const MODEL = /^[A-Za-z0-9._@-]{1,200}$/;
const RANKING_CONFIG = /^projects\/[A-Za-z0-9.:-]+\/locations\/[a-z0-9-]+\/rankingConfigs\/[A-Za-z0-9_-]+$/;
export const DISCOVERY_ENGINE_ROOT = 'https://discoveryengine.googleapis.com/v1';

export interface VertexSettings {
  project: string;
  region: string;
}

function required(cloud: Readonly<Record<string, string>>, name: 'project-id' | 'region', pattern: RegExp): string {
  const header = `x-gateway-vertex-${name}`;
  const value = cloud[`vertex-${name}`];
  if (value === undefined || value === '') {
    const what = name === 'region' ? 'region (e.g. us-central1 or global)' : 'Google Cloud project id';
    throw invalidParam(header, `Vertex AI needs the ${what}: send ${header}.`, 'missing_cloud_setting');
  }
  if (!pattern.test(value)) throw invalidParam(header, `${header} is not a valid value.`, 'invalid_cloud_setting');
  return value;
}

export function vertexSettings(cloud: Readonly<Record<string, string>>): VertexSettings {
  return { project: required(cloud, 'project-id', PROJECT), region: required(cloud, 'region', REGION) };
}

export function vertexBaseUrl(cloud: Readonly<Record<string, string>>): string {
  const { project, region } = vertexSettings(cloud);
  const host = region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${project}/locations/${region}`;
}

/** The service root a custom host stands for, with its version. */
function customRoot(target: ProviderTarget): string {
  return withVersion(target.baseUrl, 'v1');
}

/** `.../projects/{project}/locations/{region}`: the resolved base URL, or the custom host's root plus the location path. */
export function locationBase(target: ProviderTarget): string {
  if (!target.customHost) return target.baseUrl;
  const { project, region } = vertexSettings(target.cloud);
  return `${customRoot(target)}/projects/${project}/locations/${region}`;
}

/** Model ids end up in the URL path: only the characters Vertex model ids use (`claude-sonnet-4@20250514`). */
export function checkedModel(model: unknown): string {
  if (typeof model !== 'string' || !MODEL.test(model)) {
    throw invalidParam('model', 'The model must be a Vertex AI model id (letters, digits, ".", "_", "-", "@").', 'invalid_model');
  }
  return model;
}

export function isClaude(model: string): boolean {
  return model.startsWith('claude-');
}

export interface RankingEndpoint {
  url: string;
  /** the ranker model id for the body; undefined when the client named a ranking config resource */
  model: string | undefined;
}

/**
 * The ranking call. `model` is either a ranker model id (`semantic-ranker-default@latest`), sent as the body's
 * `model` with the project's `default_ranking_config` (the ranking API is served from the `global` location),
 * or a full ranking config resource name (`projects/{p}/locations/{l}/rankingConfigs/{c}`), used as the URL's
 * resource with no `model` in the body, so the config's own model applies.
 */
export function rankingEndpoint(target: ProviderTarget, model: unknown): RankingEndpoint {
  const root = target.customHost ? customRoot(target) : DISCOVERY_ENGINE_ROOT;
  if (typeof model === 'string' && model.startsWith('projects/')) {
    if (!RANKING_CONFIG.test(model)) {
      throw invalidParam('model', 'A ranking config must be named projects/{project}/locations/{location}/rankingConfigs/{config}.', 'invalid_model');
    }
    return { url: `${root}/${model}:rank`, model: undefined };
  }
  const { project } = vertexSettings(target.cloud);
  return { url: `${root}/projects/${project}/locations/global/rankingConfigs/default_ranking_config:rank`, model: checkedModel(model) };
}
