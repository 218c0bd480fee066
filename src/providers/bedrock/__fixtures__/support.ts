/** Shared by the Bedrock unit tests: fixture loading and a call and target as the core would build them. */
import { readFileSync } from 'node:fs';
import type { InferenceCall, ProviderTarget, RouteKind } from '../../contract.ts';

export function loadFixture<T = Record<string, unknown> & { call: Record<string, unknown> }>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), 'utf8')) as T;
}

export function bedrockCall(route: RouteKind, body: unknown, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

export function bedrockTarget(cloud: Record<string, string> = {}, extra: Partial<ProviderTarget> = {}): ProviderTarget {
  return {
    provider: 'bedrock',
    baseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com',
    customHost: false,
    apiKey: undefined,
    cloud: { 'aws-region': 'us-west-2', 'aws-access-key-id': 'AKIDEXAMPLE', 'aws-secret-access-key': 'secret', ...cloud },
    ...extra,
  };
}
