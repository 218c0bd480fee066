/**
 * A NUL character in an admin body field, query filter or path parameter is a 400 naming the field on every back-end
 * (PostgreSQL refuses NUL in text, which was a 500), and nothing is written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLogs, guardrails, workspaces } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const CHECKS = [{ id: 'default.regexMatch', parameters: { rule: '\\d{3}' } }];

for (const backend of testBackends()) {
  describe(`NUL characters in admin input [${backend.name}]`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
    });

    after(() => closeAll(() => gateway?.close()));

    const db = () => gateway.gateway.database.db;

    async function expectNul(method: string, path: string, body: unknown, param: string): Promise<void> {
      const response = await call(method, path, gateway.adminKey, body);
      assert.equal(response.status, 400, `${method} ${path} -> ${response.status} ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.type, 'invalid_request_error');
      assert.equal(response.body.error.code, 'nul_character');
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
    }

    test('a workspace name with a NUL: 400 naming name, no workspace written, the attempt audited as failed', async () => {
      const before = (await db().select().from(workspaces)).length;
      await expectNul('POST', '/admin/workspaces', { name: 'bad\u0000name', description: 'x' }, 'name');
      assert.equal((await db().select().from(workspaces)).length, before, 'no workspace was written');
      const listed = await call('GET', '/admin/workspaces?name=bad', gateway.adminKey);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.total, 0);
      const audit = await db().select().from(auditLogs).where(eq(auditLogs.action, 'workspaces.create'));
      assert.ok(audit.some((row) => row.outcome === 'failed' && row.responseStatusCode === 400), 'the refused attempt is audited');
    });

    test('a NUL deep in a body, and in a key, is named by its path', async () => {
      await expectNul('POST', '/admin/workspaces', { name: 'ok', defaults: { metadata: { team: 'a\u0000' } } }, 'defaults.metadata.team');
      await expectNul('POST', '/admin/workspaces', { name: 'ok', defaults: { metadata: { 'k\u0000': 'v' } } }, 'defaults.metadata.k\\u0000');
      await expectNul('POST', '/admin/workspaces', { name: 'ok', usage_limits: [{ credit_limit: 10, type: 'cost', periodic_reset: 'monthly' }], users: ['\u0000'] }, 'users[0]');
    });

    test('a guardrail with a NUL in its name or in a check parameter: 400, nothing written', async () => {
      const before = (await db().select().from(guardrails)).length;
      await expectNul('POST', '/guardrails', { name: 'G\u0000', checks: CHECKS, actions: {} }, 'name');
      await expectNul('POST', '/guardrails', { name: 'G', checks: [{ id: 'default.regexMatch', parameters: { rule: '\u0000' } }], actions: {} }, 'checks[0].parameters.rule');
      assert.equal((await db().select().from(guardrails)).length, before, 'no guardrail was written');
      const listed = await call('GET', '/guardrails', gateway.adminKey);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.total, before);
    });

    test('a list filter with a NUL (?name=%00): 400 naming name', async () => {
      await expectNul('GET', '/admin/workspaces?name=%00', undefined, 'name');
      await expectNul('GET', '/admin/workspaces?exact_name=a%00b', undefined, 'exact_name');
      await expectNul('GET', '/guardrails?name=%00', undefined, 'name');
      await expectNul('GET', '/configs?name=%00', undefined, 'name');
    });

    test('a path parameter with a NUL: 400', async () => {
      await expectNul('GET', '/admin/workspaces/ws-%00', undefined, 'workspaceId');
      await expectNul('PUT', '/configs/a%00b', { name: 'x' }, 'slug');
    });

    test('the invite acceptance (no gateway key) refuses a NUL too', async () => {
      const response = await call('POST', '/admin/users/invites/accept', undefined, { token: 'a-token-of-some-length', first_name: 'Ada\u0000' });
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.body.error.param, 'first_name');
    });

    test('the same input without the NUL works', async () => {
      const created = await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'good name' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const listed = await call('GET', '/admin/workspaces?name=good', gateway.adminKey);
      assert.equal(listed.body.total, 1);
    });
  });
}
