/**
 * Where an Azure OpenAI call goes (https://learn.microsoft.com/en-us/azure/ai-services/openai/reference).
 * Base URL: https://{x-gateway-azure-resource-name}.openai.azure.com/openai, or x-gateway-custom-host.
 * - Dated API versions (the default): {base}/deployments/{x-gateway-azure-deployment-id}/{chat/completions |
 *   completions | embeddings}?api-version={x-gateway-azure-api-version, else DEFAULT_API_VERSION}.
 * - `x-gateway-azure-api-version: v1` opts in to the v1 API
 *   (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle): {base}/v1/{path}, no
 *   api-version, and the body's `model` names the deployment (x-gateway-azure-deployment-id, when sent, replaces it).
 * Pass-through paths go to {base}{path} (v1: {base}/v1{path}) with the api-version added when the query has none.
 */
import { invalidParam } from '../../core/errors.ts';
import type { InferenceCall, ProviderTarget } from '../contract.ts';
import { upstreamPath } from '../openai-compatible/base.ts';

/** The newest GA (dated) data-plane inference version; chat, completions, embeddings, tools, stream_options. */
export const DEFAULT_API_VERSION = '2024-10-21';

const RESOURCE_HEADER = 'x-gateway-azure-resource-name';
const DEPLOYMENT_HEADER = 'x-gateway-azure-deployment-id';
/** An Azure custom subdomain: it becomes a host name label, so nothing else may pass (no dots, slashes, ports). */
const RESOURCE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/i;

/** The resource name as a host label; a 400 naming the header when it is missing or not a valid name. */
export function resourceName(cloud: Readonly<Record<string, string>>, service: string): string {
  const name = cloud['azure-resource-name'];
  if (!name) {
    throw invalidParam(RESOURCE_HEADER, `${service} needs the resource name: send ${RESOURCE_HEADER} (or the endpoint in x-gateway-custom-host).`, 'missing_header');
  }
  if (!RESOURCE_NAME.test(name)) {
    throw invalidParam(RESOURCE_HEADER, `Header ${RESOURCE_HEADER} must be an Azure resource name (letters, digits and hyphens), got "${name}".`, 'invalid_header');
  }
  return name.toLowerCase();
}

export function azureOpenAiBaseUrl(cloud: Readonly<Record<string, string>>): string {
  return `https://${resourceName(cloud, 'Azure OpenAI')}.openai.azure.com/openai`;
}

/** The client's query with `api-version` appended unless it already names one (the client's bytes otherwise kept). */
export function withApiVersion(query: string, version: string): string {
  if (new URLSearchParams(query).has('api-version')) return query;
  const parameter = `api-version=${encodeURIComponent(version)}`;
  return query ? `${query}&${parameter}` : parameter;
}

export function isV1(target: ProviderTarget): boolean {
  return target.cloud['azure-api-version']?.toLowerCase() === 'v1';
}

export function azureOpenAiUrl(call: InferenceCall, target: ProviderTarget): string {
  const path = upstreamPath(call);
  if (isV1(target)) return `${target.baseUrl}/v1${path}${call.query ? `?${call.query}` : ''}`;
  const query = `?${withApiVersion(call.query, target.cloud['azure-api-version'] ?? DEFAULT_API_VERSION)}`;
  if (call.route === 'passthrough') return `${target.baseUrl}${path}${query}`;
  const deployment = target.cloud['azure-deployment-id'];
  if (!deployment) {
    throw invalidParam(DEPLOYMENT_HEADER, `Azure OpenAI needs the deployment: send ${DEPLOYMENT_HEADER}.`, 'missing_header');
  }
  return `${target.baseUrl}/deployments/${encodeURIComponent(deployment)}${path}${query}`;
}

/**
 * On the v1 API the deployment is the body's `model`: a deployment header that names another one rewrites the body
 * (only then; otherwise the client's bytes pass untouched). Returns undefined when nothing changes.
 */
export function v1Body(call: InferenceCall, target: ProviderTarget): string | undefined {
  const deployment = target.cloud['azure-deployment-id'];
  const body = call.body;
  if (!deployment || !isV1(target) || call.route === 'passthrough') return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { strict_reference_compliance: _flag, ...rest } = body as Record<string, unknown>;
  if (rest.model === deployment) return undefined;
  return JSON.stringify({ ...rest, model: deployment });
}
