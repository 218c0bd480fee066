import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from '../../../test/fakes/google-token-endpoint.ts';
import { GatewayError } from '../../core/errors.ts';
import { parseAllowlist } from '../../upstream/ssrf-guard.ts';
import type { PrepareContext } from '../contract.ts';
import { createTokenSource, parseServiceAccount, type TokenSource } from './auth.ts';

let endpoint: FakeTokenEndpoint;
let now = 1_700_000_000_000;
let tokens: TokenSource;
const context = (signal = new AbortController().signal): PrepareContext => ({ allowlist: parseAllowlist(['127.0.0.1']), signal });

before(async () => {
  endpoint = await startFakeTokenEndpoint({ now: () => now });
});
after(() => endpoint.close());
beforeEach(() => {
  endpoint.issued.length = 0;
  endpoint.rejected = 0;
  endpoint.expiresIn = 3600;
  endpoint.delayMs = 0;
  endpoint.failNext = 0;
  tokens = createTokenSource({ now: () => now });
});

describe('vertex-ai service account tokens', () => {
  test('the signed assertion is accepted; a second request reuses the cached token', async () => {
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
    assert.deepEqual(endpoint.issued, ['ya29.fake-1']);
    assert.equal(endpoint.rejected, 0);
  });

  test('cached until 60 s before expiry, then refreshed (injected clock)', async () => {
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    const start = now;
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
    now = start + 3600_000 - 60_000 - 1;
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
    now = start + 3600_000 - 60_000;
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-2');
    assert.equal(endpoint.issued.length, 2);
    now = start;
  });

  test('a token with less than a minute left is never reused', async () => {
    endpoint.expiresIn = 30;
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-2');
  });

  test('concurrent requests share one token fetch', async () => {
    endpoint.delayMs = 50;
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    const all = await Promise.all(Array.from({ length: 5 }, () => tokens.accessToken(key, context())));
    assert.deepEqual(all, Array(5).fill('ya29.fake-1'));
    assert.equal(endpoint.issued.length, 1);
  });

  test('knowing the client_email is not enough: another private key is not served the cached token', async () => {
    await tokens.accessToken(parseServiceAccount(JSON.stringify(endpoint.serviceAccount)), context());
    await assert.rejects(tokens.accessToken(parseServiceAccount(JSON.stringify(endpoint.otherKey)), context()), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 401);
      assert.match(error.message, /Invalid JWT Signature/);
      return true;
    });
    assert.equal(endpoint.rejected, 1);
  });

  test('a failed fetch is not cached: the token endpoint failing is a 502, the next request fetches again', async () => {
    endpoint.failNext = 1;
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    await assert.rejects(tokens.accessToken(key, context()), (error: unknown) => error instanceof GatewayError && error.status === 502 && /Backend Error/.test(error.message));
    assert.equal(await tokens.accessToken(key, context()), 'ya29.fake-1');
  });

  test('the token_uri goes through the SSRF guard: loopback is refused without an allowlist entry', async () => {
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    for (const ctx of [undefined, { allowlist: parseAllowlist([]), signal: new AbortController().signal }]) {
      await assert.rejects(tokens.accessToken(key, ctx), (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.status, 400);
        assert.equal(error.param, 'x-gateway-vertex-service-account-json');
        assert.match(error.message, /token_uri is not allowed/);
        return true;
      });
    }
    assert.equal(endpoint.issued.length, 0);
  });

  test('a waiting request gives up when its signal aborts; the shared fetch still completes for the others', async () => {
    endpoint.delayMs = 100;
    const key = parseServiceAccount(JSON.stringify(endpoint.serviceAccount));
    const controller = new AbortController();
    const waiting = tokens.accessToken(key, context(controller.signal));
    const other = tokens.accessToken(key, context());
    setTimeout(() => controller.abort(new Error('client went away')), 10);
    await assert.rejects(waiting, /client went away/);
    assert.equal(await other, 'ya29.fake-1');
  });

  test('the key header: raw JSON or base64 JSON; anything else is a 400 naming the header', () => {
    const raw = JSON.stringify(endpoint.serviceAccount);
    assert.deepEqual(parseServiceAccount(Buffer.from(raw).toString('base64')), parseServiceAccount(raw));
    assert.equal(parseServiceAccount(raw).tokenUri, endpoint.tokenUri);
    assert.equal(parseServiceAccount(JSON.stringify({ ...endpoint.serviceAccount, token_uri: undefined })).tokenUri, 'https://oauth2.googleapis.com/token');
    for (const bad of ['not json', JSON.stringify({ client_email: 'x' })]) {
      assert.throws(() => parseServiceAccount(bad), (error: unknown) => error instanceof GatewayError && error.param === 'x-gateway-vertex-service-account-json');
    }
  });
});
