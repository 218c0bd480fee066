/**
 * The set-up the prompt library tests (collections, labels, partials) share: a gateway on one back-end, workspace
 * A (the default) and B, keys of every kind holding `scopes`, and checks of audit records and documented answers.
 */
import assert from 'node:assert/strict';
import { and, eq } from 'drizzle-orm';
import { Ajv } from 'ajv';
import { buildOpenApiDocument } from '../../src/http/openapi/document.ts';
import { auditLogs, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import type { TestBackend } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

export const MISSING = '00000000-0000-4000-8000-000000000000';

export type KeyName = 'svcA' | 'svcB' | 'managerA' | 'memberA' | 'unscoped';

export interface World {
  gateway: TestGateway;
  call: ReturnType<typeof adminClient>;
  A: string;
  B: { id: string; slug: string };
  organisationId: string;
  keys: Record<KeyName, { id: string; key: string }>;
  close(): Promise<void>;
}

export async function startWorld(backend: TestBackend, scopes: readonly string[]): Promise<World> {
  const created = await backend.create();
  const gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
  const call = adminClient(gateway.baseURL);
  const ok = async (method: string, path: string, body?: unknown) => {
    const response = await call(method, path, gateway.adminKey, body);
    assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes, ...body });
  const db = gateway.gateway.database.db;
  const member = async (workspaceId: string, email: string, role: string) => {
    const [row] = await db.insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email, role: 'member' }).returning();
    await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
    return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
  };
  const A = gateway.gateway.bootstrap.workspace.id;
  const B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
  const keys = {
    svcA: await createKey('workspace/service', { workspace_id: A }),
    svcB: await createKey('workspace/service', { workspace_id: B.id }),
    managerA: await member(A, 'manager@example.com', 'manager'),
    memberA: await member(A, 'member@example.com', 'member'),
    unscoped: await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] }),
  };
  return {
    gateway, call, A, B, keys,
    organisationId: gateway.gateway.bootstrap.organisation.id,
    async close() {
      await gateway.close();
      await created.drop();
    },
  };
}

/** An audit record of `action` with `outcome` (and of `resourceId`, when given) exists. */
export async function audited(world: World, action: string, outcome: string, resourceId?: string): Promise<void> {
  const rows = await world.gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
  assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
}

const document = buildOpenApiDocument();
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: 'https://gateway.invalid/openapi.json' });
const token = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/** Asserts that `body` matches the 200 answer documented for `method template`. */
export function assertDocumented(method: string, template: string, body: unknown): void {
  const pointer = ['paths', template, method.toLowerCase(), 'responses', '200', 'content', 'application/json', 'schema'].map(token).join('/');
  const validate = ajv.getSchema(`https://gateway.invalid/openapi.json#/${pointer}`);
  assert.ok(validate, `${method} ${template} documents no JSON answer`);
  assert.ok(validate(body), `${method} ${template}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}
