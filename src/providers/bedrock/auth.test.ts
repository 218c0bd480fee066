/**
 * SigV4 signing checked against an independent implementation of the algorithm written from AWS's description
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html), so a wrong
 * canonical path (model ids are percent-encoded, then encoded again for the signature) or a body mismatch shows.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { UpstreamRequest } from '../contract.ts';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { createBedrockAdapter } from './index.ts';

const AWS = { 'aws-region': 'us-west-2', 'aws-access-key-id': 'AKIDEXAMPLE', 'aws-secret-access-key': 'secret' };
const bedrockTarget = (cloud: Record<string, string> = {}) => providerTarget('bedrock', 'https://bedrock-runtime.us-west-2.amazonaws.com', { cloud: { ...AWS, ...cloud } });

const adapter = createBedrockAdapter({ clock: { now: () => Date.UTC(2024, 4, 17, 12, 30, 45), newId: () => 'id' } });

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function expectedSignature(request: UpstreamRequest, signedHeaders: string[], secret: string, region: string): string {
  const url = new URL(request.url);
  const canonicalPath = url.pathname.split('/').map(rfc3986).join('/');
  const query = [...url.searchParams].map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).sort().join('&');
  const headers = signedHeaders.map((name) => `${name}:${String(request.headers[name]).trim()}\n`).join('');
  const body = request.body === undefined ? '' : request.body;
  const canonical = [request.method, canonicalPath, query, headers, signedHeaders.join(';'), sha256(body)].join('\n');
  const amzDate = request.headers['x-amz-date']!;
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${region}/bedrock/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 'bedrock'), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

test('prepare signs the exact body and encoded path; session token and host are signed', async () => {
  const target = bedrockTarget({ 'aws-session-token': 'session-token-1', 'aws-region': 'us-east-1' });
  const call = inferenceCall('chat', { model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'Hi ✓' }] });
  const built = adapter.buildRequest(call, { ...target, baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com' });
  built.headers['x-forwarded-for-test'] = 'kept';
  const signed = await adapter.prepare!(built, target);

  assert.equal(signed.body, built.body, 'the body is not rebuilt after signing');
  assert.equal(signed.headers['x-amz-date'], '20240517T123045Z');
  assert.equal(signed.headers['x-amz-security-token'], 'session-token-1');
  assert.equal(signed.headers.host, 'bedrock-runtime.us-east-1.amazonaws.com');
  const match = /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20240517\/us-east-1\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    signed.headers.authorization ?? '',
  );
  assert.ok(match, signed.headers.authorization);
  const signedHeaders = match[1]!.split(';');
  for (const name of ['host', 'x-amz-date', 'x-amz-security-token', 'content-type', 'x-forwarded-for-test']) assert.ok(signedHeaders.includes(name), name);
  assert.equal(match[2], expectedSignature(signed, signedHeaders, 'secret', 'us-east-1'));
});

test('signing again (a retry) replaces the old signature instead of signing it', async () => {
  const target = bedrockTarget();
  const built = adapter.buildRequest(inferenceCall('embeddings', { model: 'amazon.titan-embed-text-v2:0', input: 'x' }), target);
  const once = await adapter.prepare!(built, target);
  const twice = await adapter.prepare!(once, target);
  assert.equal(twice.headers.authorization, once.headers.authorization);
});

test('a query string is part of the signature (pass-through)', async () => {
  const target = bedrockTarget();
  const call = inferenceCall('passthrough', undefined, { method: 'GET', path: '/async-invoke', query: 'maxResults=5&statusEquals=Completed', rawBody: undefined });
  const signed = await adapter.prepare!(adapter.buildRequest(call, target), target);
  assert.equal(signed.url, 'https://bedrock-runtime.us-west-2.amazonaws.com/async-invoke?maxResults=5&statusEquals=Completed');
  const [, list = '', signature] = /SignedHeaders=([^,]+), Signature=(\w+)/.exec(signed.headers.authorization ?? '') ?? [];
  assert.equal(signature, expectedSignature(signed, list.split(';'), 'secret', 'us-west-2'));
});
