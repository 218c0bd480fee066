import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeEntra, type FakeEntra } from '../../../test/fakes/entra-token-endpoint.ts';
import { GatewayError } from '../../core/errors.ts';
import { parseAllowlist } from '../../upstream/ssrf-guard.ts';
import type { PrepareContext, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { COGNITIVE_SERVICES_SCOPE, createEntraAuth } from './entra.ts';

const APP = { tenant: 'contoso-tenant', clientId: 'client-1', clientSecret: 'secret~1' };
let entra: FakeEntra;
let now = 1_700_000_000_000;
const context = (allow = ['127.0.0.1']): PrepareContext => ({ allowlist: parseAllowlist(allow), signal: new AbortController().signal });
const request: UpstreamRequest = { method: 'POST', url: 'https://r.openai.azure.com/openai/deployments/d/chat/completions', headers: { 'api-key': 'k', 'content-type': 'application/json' }, body: '{}', warnings: [] };

function target(cloud: Record<string, string>): ProviderTarget {
  return {
    provider: 'azure-openai',
    baseUrl: 'https://r.openai.azure.com/openai',
    customHost: false,
    apiKey: undefined,
    cloud: { 'azure-auth-mode': 'entra', 'azure-entra-tenant-id': APP.tenant, 'azure-entra-client-id': APP.clientId, 'azure-entra-client-secret': APP.clientSecret, 'azure-authority-host': entra.origin, ...cloud },
  };
}

before(async () => {
  entra = await startFakeEntra(APP, COGNITIVE_SERVICES_SCOPE);
});
after(() => entra.close());

describe('azure entra client credentials', () => {
  test('the token replaces api-key and is held until 60 s before it expires', async () => {
    const auth = createEntraAuth({ now: () => now });
    entra.expiresIn = 3600;
    const first = await auth.prepare(request, target({}), context());
    assert.equal(first.headers.authorization, `Bearer ${entra.issued.at(-1)}`);
    assert.equal(first.headers['api-key'], undefined);
    assert.equal(first.headers['content-type'], 'application/json');
    const count = entra.requests.length;
    now += 3600_000 - 61_000;
    assert.equal((await auth.prepare(request, target({}), context())).headers.authorization, first.headers.authorization);
    assert.equal(entra.requests.length, count);
    now += 2_000;
    const refreshed = await auth.prepare(request, target({}), context());
    assert.equal(entra.requests.length, count + 1, 'fetched again inside the margin');
    assert.notEqual(refreshed.headers.authorization, first.headers.authorization);
  });

  test('a token Azure refused is dropped while it is the one held; a refresh made meanwhile is kept', async () => {
    const auth = createEntraAuth({ now: () => now });
    const refused = await auth.prepare(request, target({}), context());
    const count = entra.requests.length;
    assert.equal(auth.refused(refused, target({})), true);
    const fresh = await auth.prepare(request, target({}), context());
    assert.equal(entra.requests.length, count + 1, 'fetched again');
    assert.notEqual(fresh.headers.authorization, refused.headers.authorization);
    // a second request that carried the old token comes back refused after the refresh: the fresh one stays
    assert.equal(auth.refused(refused, target({})), false);
    assert.equal((await auth.prepare(request, target({}), context())).headers.authorization, fresh.headers.authorization);
    assert.equal(entra.requests.length, count + 1);
    // a client's own bearer is never the gateway's to drop
    assert.equal(auth.refused(request, { ...target({}), cloud: { 'azure-auth-mode': 'entra' } }), false);
  });

  test('api-key and default modes are left alone; entra without client credentials keeps the client bearer', async () => {
    const auth = createEntraAuth({ now: () => now });
    const count = entra.requests.length;
    assert.deepEqual(await auth.prepare(request, target({ 'azure-auth-mode': 'default' }), context()), request);
    const bare = { ...target({}), cloud: { 'azure-auth-mode': 'entra' } };
    assert.deepEqual(await auth.prepare(request, bare, context()), request);
    assert.equal(entra.requests.length, count);
  });

  test('partial credentials, managed identity and a blocked authority are 400s naming the setting; refusals are 401s', async () => {
    const auth = createEntraAuth({ now: () => now });
    const partial = target({});
    const { 'azure-entra-client-secret': _secret, ...cloud } = partial.cloud;
    await assert.rejects(auth.prepare(request, { ...partial, cloud }, context()), (error: GatewayError) => error.status === 400 && error.param === 'x-gateway-azure-entra-client-secret');
    await assert.rejects(auth.prepare(request, target({ 'azure-auth-mode': 'managed' }), context()), (error: GatewayError) => error.code === 'azure_managed_identity_unavailable');
    await assert.rejects(auth.prepare(request, target({}), context([])), (error: GatewayError) => error.status === 400 && error.param === 'x-gateway-azure-authority-host');
    await assert.rejects(auth.prepare(request, target({ 'azure-entra-client-secret': 'wrong' }), context()), (error: GatewayError) => error.status === 401 && /AADSTS7000215/.test(error.message));
  });
});
