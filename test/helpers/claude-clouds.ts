/**
 * The Anthropic SDK pointed at the gateway, with the headers that send it to Claude on Vertex AI or on Bedrock
 * (the fakes of test/fakes/): shared by the Messages API tests over those clouds.
 */
import Anthropic from '@anthropic-ai/sdk';
import { PROJECT, REGION } from '../fakes/vertex-upstream.ts';
import type { TestGateway } from './gateway.ts';

export function vertexHeaders(gateway: TestGateway, vertexOrigin: string): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'vertex-ai',
    'x-gateway-custom-host': `${vertexOrigin}/v1`,
    'x-gateway-vertex-project-id': PROJECT,
    'x-gateway-vertex-region': REGION,
  };
}

export function bedrockHeaders(gateway: TestGateway, bedrockUrl: string, credentials: { accessKeyId: string; secret: string }): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': bedrockUrl,
    'x-gateway-aws-region': 'us-east-1',
    'x-gateway-aws-access-key-id': credentials.accessKeyId,
    'x-gateway-aws-secret-access-key': credentials.secret,
  };
}

/** The Anthropic SDK as a client would point it at the gateway: its key (e.g. a Vertex token) in x-api-key. */
export function anthropicClient(gateway: TestGateway, headers: Record<string, string>, apiKey = 'unused'): Anthropic {
  return new Anthropic({ apiKey, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: headers });
}
