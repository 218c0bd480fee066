/**
 * Where Bedrock calls go. Runtime (Converse, InvokeModel):
 * https://docs.aws.amazon.com/general/latest/gr/bedrock.html -> https://bedrock-runtime.{region}.amazonaws.com;
 * Agent Runtime (Rerank): https://bedrock-agent-runtime.{region}.amazonaws.com. A custom host serves both.
 */
import { invalidParam } from '../../core/errors.ts';
import type { ProviderTarget } from '../contract.ts';

export const REGION_HEADER = 'x-gateway-aws-region';

export function regionOf(cloud: Readonly<Record<string, string>>): string {
  const region = cloud['aws-region'];
  if (!region) throw invalidParam(REGION_HEADER, `Bedrock needs the AWS region: send ${REGION_HEADER}.`, 'missing_header');
  // the region becomes part of a host name and of the signature scope
  if (!/^[a-z]{2}(-[a-z0-9]+)+-\d+$/.test(region)) {
    throw invalidParam(REGION_HEADER, `"${region}" is not an AWS region name.`, 'invalid_header');
  }
  return region;
}

export function runtimeBaseUrl(cloud: Readonly<Record<string, string>>): string {
  return `https://bedrock-runtime.${regionOf(cloud)}.amazonaws.com`;
}

export function agentRuntimeBaseUrl(target: ProviderTarget): string {
  return target.customHost ? target.baseUrl : `https://bedrock-agent-runtime.${regionOf(target.cloud)}.amazonaws.com`;
}

/** Model ids and ARNs (`arn:aws:bedrock:...:inference-profile/...`) contain `:` and `/`: one encoded path segment. */
export function modelPath(modelId: string, action: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream' | 'count-tokens'): string {
  return `/model/${encodeURIComponent(modelId)}/${action}`;
}

/** Rerank takes a model ARN; a bare foundation-model id is turned into one for the call's region. */
export function modelArn(model: string, region: string): string {
  return model.startsWith('arn:') ? model : `arn:aws:bedrock:${region}::foundation-model/${model}`;
}
