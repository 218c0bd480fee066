/** JWT authentication against a local JWKS server: grants, and every kind of bad token refused with 401. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPair } from 'jose';
import { request } from 'undici';
import { createJwtVerifier } from '../../src/auth/jwt.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';
import { users, workspaceMembers } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server.ts';

const ISSUER = 'https://idp.example.com/';
const AUDIENCE = 'ai-gateway';

for (const backend of testBackends()) {
  describe(`jwt [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let jwks: JwksServer;
    let call: ReturnType<typeof adminClient>;
    let managerId: string;
    let outsiderId: string;

    before(async () => {
      jwks = await startJwksServer({ issuer: ISSUER, audience: AUDIENCE });
      upstream = await startFakeUpstream();
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      const db = gateway.gateway.database.db;
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const [manager] = await db.insert(users).values({ organisationId, email: 'manager@example.com', role: 'member' }).returning();
      const [outsider] = await db.insert(users).values({ organisationId, email: 'outsider@example.com', role: 'member' }).returning();
      managerId = manager!.id;
      outsiderId = outsider!.id;
      await db.insert(workspaceMembers).values({ workspaceId: gateway.gateway.bootstrap.workspace.id, userId: managerId, role: 'manager' });
      const configured = await call('PUT', '/admin/organisation', gateway.adminKey, { settings: { jwt: { jwks_url: jwks.url, issuer: ISSUER, audience: AUDIENCE } } });
      assert.equal(configured.status, 200, JSON.stringify(configured.body));
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => jwks?.close()));

    const claims = () => ({ sub: managerId, workspace_id: 'default', scope: 'completions.write workspace_service_api_keys.create workspace_service_api_keys.list' });

    async function chatWith(token: string): Promise<number> {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': token, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.body.text();
      return response.statusCode;
    }

    describe('valid tokens', () => {
      test('a manager\'s token serves inference and creates workspace keys in its workspace, within its scopes', async () => {
        const token = await jwks.sign(claims());
        assert.equal(await chatWith(token), 200);
        const created = await call('POST', '/api-keys/workspace/service', token, { name: 'from-jwt', scopes: ['completions.write'], workspace_id: 'default' });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const escalate = await call('POST', '/api-keys/workspace/service', token, { name: 'x', scopes: ['workspaces.delete'], workspace_id: 'default' });
        assert.equal(escalate.status, 403);
        const adminKey = await call('POST', '/api-keys/organisation/service', token, { name: 'x', scopes: [] });
        assert.equal(adminKey.status, 403, 'a workspace manager cannot create admin keys');
        const list = await call('GET', '/api-keys', token);
        assert.equal(list.status, 200);
      });

      test('the audit record names the user behind the token', async () => {
        const token = await jwks.sign(claims());
        const created = await call('POST', '/api-keys/workspace/service', token, { name: 'audited', scopes: ['completions.write'], workspace_id: 'default' });
        const now = new Date();
        const logs = await call('GET', `/audit-logs?organisation_id=${gateway.gateway.bootstrap.organisation.id}&start_time=${new Date(now.getTime() - 60_000).toISOString()}&end_time=${new Date(now.getTime() + 60_000).toISOString()}&action=api_keys.create&user_type=user`, gateway.adminKey);
        assert.equal(logs.status, 200);
        const record = logs.body.data.find((row: { resource_id: string }) => row.resource_id === created.body.id);
        assert.equal(record.user_id, managerId);
        assert.equal(record.user_type, 'user');
      });
    });

    describe('refused tokens: 401', () => {
      const cases: Array<[string, () => Promise<string>]> = [
        ['expired', () => jwks.sign(claims(), { expiresIn: Math.floor(Date.now() / 1000) - 60 })],
        ['wrong issuer', () => jwks.sign(claims(), { issuer: 'https://evil.example.com/' })],
        ['wrong audience', () => jwks.sign(claims(), { audience: 'someone-else' })],
        ['unknown kid', () => jwks.sign(claims(), { kid: 'no-such-kid' })],
        ['wrong signature', async () => jwks.sign(claims(), { key: (await generateKeyPair('RS256')).privateKey })],
        ['alg none', async () => {
          const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
          return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ ...claims(), iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
        }],
        ['unknown user', () => jwks.sign({ ...claims(), sub: '00000000-0000-4000-8000-000000000001' })],
        ['user not in the workspace', () => jwks.sign({ ...claims(), sub: outsiderId })],
        ['tampered payload', async () => {
          const [header, , signature] = (await jwks.sign(claims())).split('.');
          return `${header}.${Buffer.from(JSON.stringify({ ...claims(), sub: outsiderId, scope: 'workspaces.delete' })).toString('base64url')}.${signature}`;
        }],
      ];
      for (const [name, token] of cases) {
        test(name, async () => {
          const value = await token();
          const response = await call('GET', '/api-keys', value);
          assert.equal(response.status, 401, `${name}: ${JSON.stringify(response.body)}`);
          assert.equal(response.body.error.type, 'authentication_error');
          assert.equal(await chatWith(value), 401);
        });
      }
    });

    test('key rotation: a token signed by a new key verifies once the key set is refetched', async () => {
      const verifier = createJwtVerifier({ allowlist: parseAllowlist(['127.0.0.1']), cooldownMs: 0 });
      try {
        const settings = { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, guarded: true };
        await verifier.verify(await jwks.sign(claims()), settings);
        const fetchesBefore = jwks.fetches;
        const kid = await jwks.rotate();
        const payload = await verifier.verify(await jwks.sign(claims(), { kid }), settings);
        assert.equal(payload.sub, managerId);
        assert.ok(jwks.fetches > fetchesBefore, 'the unknown kid made the verifier refetch the key set');
      } finally {
        await verifier.close();
      }
    });

    test('a JWKS URL in a blocked range is not fetched without the allowlist', async () => {
      const verifier = createJwtVerifier({ allowlist: parseAllowlist([]) });
      try {
        const before = jwks.fetches;
        await assert.rejects(verifier.verify(await jwks.sign(claims()), { jwksUrl: jwks.url, guarded: true }), (error: { status?: number }) => error.status === 401);
        assert.equal(jwks.fetches, before);
      } finally {
        await verifier.close();
      }
    });

    test('a member\'s token without a workspace is refused: organisation-level tokens are for owners and admins', async () => {
      // key-1: the gateway's cached key set predates the rotation test above
      const token = await jwks.sign({ sub: managerId, scope: 'workspaces.list organisation_service_api_keys.list' }, { kid: 'key-1' });
      const response = await call('GET', '/admin/workspaces', token);
      assert.equal(response.status, 401);
      assert.equal(response.body.error.code, 'workspace_required');
    });
  });
}
