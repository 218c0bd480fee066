/**
 * Feedback (api-surface §3.24): POST /feedback and PUT /feedback/{id} with workspace keys only (the seed's table),
 * validation (value an integer -10..10, weight 0..1 defaulting to 1), audit records, 404 for unknown or another
 * workspace's ids; on PGlite and the real PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { auditLogs, feedback } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

for (const backend of testBackends()) {
  describe(`feedback on ${backend.name}`, () => {
    let gateway: TestGateway;
    let drop: () => Promise<void> = async () => {};
    let call: ReturnType<typeof adminClient>;
    let keyA: { id: string; key: string };
    let keyB: { id: string; key: string };

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      const A = (await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Feedback A' })).body.id;
      const B = (await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Feedback B' })).body.id;
      keyA = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'A', scopes: [...ALL_SCOPES], workspace_id: A })).body;
      keyB = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'B', scopes: [...ALL_SCOPES], workspace_id: B })).body;
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    const db = () => gateway.gateway.database.db;
    const stored = async (id: string) => (await db().select().from(feedback).where(eq(feedback.id, id)))[0];
    const audited = async (action: string, resourceId: string) =>
      (await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.resourceId, resourceId)))).length;

    test('a workspace key creates feedback (weight 1 by default) and updates it; both are audited', async () => {
      const created = await call('POST', '/feedback', keyA.key, { trace_id: 'trace-abc', value: 7, metadata: { reviewer: 'ana' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.status, 'success');
      assert.equal(created.body.feedback_ids.length, 1);
      const id = created.body.feedback_ids[0];
      const row = await stored(id);
      assert.deepEqual([row?.traceId, row?.value, row?.weight, row?.metadata, row?.apiKeyId], ['trace-abc', 7, 1, { reviewer: 'ana' }, keyA.id]);
      assert.equal(await audited('feedback.create', id), 1);

      const updated = await call('PUT', `/feedback/${id}`, keyA.key, { value: -3, weight: 0.25 });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.deepEqual(updated.body.feedback_ids, [id]);
      const after = await stored(id);
      assert.deepEqual([after?.value, after?.weight, after?.metadata], [-3, 0.25, { reviewer: 'ana' }], 'absent metadata is kept');
      assert.ok(after!.updatedAt >= row!.updatedAt);
      assert.equal(await audited('feedback.update', id), 1);
    });

    test('an admin key is refused (403, audited as denied)', async () => {
      const response = await call('POST', '/feedback', gateway.adminKey, { trace_id: 'trace-abc', value: 1 });
      assert.equal(response.status, 403, JSON.stringify(response.body));
      assert.equal(response.body.error.code, 'workspace_key_required');
      const denied = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'feedback.create'), eq(auditLogs.outcome, 'denied')));
      assert.ok(denied.length >= 1);
    });

    test('unknown ids and another workspace\'s feedback are 404s', async () => {
      const mine = (await call('POST', '/feedback', keyA.key, { trace_id: 'trace-x', value: 0 })).body.feedback_ids[0];
      assert.equal((await call('PUT', `/feedback/${randomUUID()}`, keyA.key, { value: 1 })).status, 404);
      const other = await call('PUT', `/feedback/${mine}`, keyB.key, { value: 1 });
      assert.equal(other.status, 404, JSON.stringify(other.body));
      assert.equal((await stored(mine))?.value, 0);
    });

    test('bad bodies are 400s naming the field', async () => {
      for (const [body, param] of [
        [{ value: 1 }, 'trace_id'],
        [{ trace_id: 't', value: 11 }, 'value'],
        [{ trace_id: 't', value: -11 }, 'value'],
        [{ trace_id: 't', value: 1.5 }, 'value'],
        [{ trace_id: 't', value: 1, weight: 1.5 }, 'weight'],
        [{ trace_id: 't', value: 1, weight: -0.1 }, 'weight'],
        [{ trace_id: 't', value: 1, metadata: [] }, 'metadata'],
        [{ trace_id: 't', value: 1, extra: true }, 'extra'],
      ] as const) {
        const response = await call('POST', '/feedback', keyA.key, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      }
      const id = (await call('POST', '/feedback', keyA.key, { trace_id: 't', value: 2 })).body.feedback_ids[0];
      assert.equal((await call('PUT', `/feedback/${id}`, keyA.key, { weight: 0.5 })).body.error.param, 'value');
      assert.equal((await call('PUT', '/feedback/not-a-uuid', keyA.key, { value: 1 })).body.error.param, 'id');
    });

    test('a key without feedback.create is refused for the scope', async () => {
      const limited = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'limited', scopes: ['feedback.update'], workspace_id: (await stored((await call('POST', '/feedback', keyA.key, { trace_id: 't', value: 2 })).body.feedback_ids[0]))!.workspaceId });
      const response = await call('POST', '/feedback', limited.body.key, { trace_id: 't', value: 2 });
      assert.equal(response.status, 403);
      assert.equal(response.body.error.code, 'missing_scope');
    });
  });
}
