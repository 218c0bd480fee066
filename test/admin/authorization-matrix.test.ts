/**
 * The seed's authorisation tables (Authentication §4: key kinds, roles, operations), walked row by row as data
 * over real HTTP, on every back-end of testBackends(). Every caller holds every scope, so the denials seen come
 * from roles and key kinds; scope denials have their own small block. 403s are checked for a 'denied' audit record.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { hashApiKey } from '../../src/auth/secrets.ts';
import { apiKeys, auditLogs } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

type Caller = 'owner' | 'admin' | 'svcA' | 'managerA' | 'memberA';
type Expected = '2xx' | 403 | 404;
interface Req { method: string; path: string; body?: unknown }
interface World {
  gateway: TestGateway;
  call: ReturnType<typeof adminClient>;
  keys: Record<Caller, { id: string; key: string }>;
  orgId: string;
  A: string;
  B: string;
  /** member of A and of B */
  memberId: string;
  /** a user of the organisation in no workspace */
  outsiderId: string;
  /** a service key of workspace B */
  svcB: string;
  seq: () => number;
}
interface Row {
  seed: string;
  /** the audit action of the route */
  action: string;
  label: string;
  req?: (w: World) => Req | Promise<Req>;
  expect: Partial<Record<Caller, Expected>>;
  todo?: string;
}

const ADMIN_KEYS = { owner: '2xx', admin: '2xx' } as const;
const WS_KEYS_DENIED = { svcA: 403, managerA: 403, memberA: 403 } as const;
const WS_KEYS_HIDDEN = { svcA: 404, managerA: 404, memberA: 404 } as const;
const EVERYONE: Partial<Record<Caller, Expected>> = { owner: '2xx', admin: '2xx', svcA: '2xx', managerA: '2xx', memberA: '2xx' };

const ROLE_TABLE: Row[] = [
  { seed: 'Role: can create admin key', action: 'api_keys.create', label: 'POST /api-keys/organisation/service',
    req: () => ({ method: 'POST', path: '/api-keys/organisation/service', body: { name: 'admin key', scopes: ['completions.write'] } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Role: can create workspace key (managed workspace A)', action: 'api_keys.create', label: 'POST /api-keys/workspace/service A',
    req: (w) => ({ method: 'POST', path: '/api-keys/workspace/service', body: { name: 'ws key', scopes: ['completions.write'], workspace_id: w.A } }),
    // a service key of A acts with manager rights in A (authorize.ts canManageWorkspace)
    expect: { ...ADMIN_KEYS, managerA: '2xx', memberA: 403, svcA: '2xx' } },
  { seed: 'Role: can create workspace key (user key in A)', action: 'api_keys.create', label: 'POST /api-keys/workspace/user A',
    req: (w) => ({ method: 'POST', path: '/api-keys/workspace/user', body: { name: 'user key', scopes: ['completions.write'], workspace_id: w.A, user_id: w.memberId } }),
    expect: { ...ADMIN_KEYS, managerA: '2xx', memberA: 403, svcA: '2xx' } },
  { seed: 'Role: can create workspace key (any workspace: B)', action: 'api_keys.create', label: 'POST /api-keys/workspace/service B',
    req: (w) => ({ method: 'POST', path: '/api-keys/workspace/service', body: { name: 'ws key', scopes: ['completions.write'], workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
];

const OPERATION_TABLE: Row[] = [
  { seed: 'Operation: manage organization settings', action: 'organisations.read', label: 'GET /admin/organisation',
    req: () => ({ method: 'GET', path: '/admin/organisation' }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage organization settings', action: 'organisations.update', label: 'PUT /admin/organisation',
    req: () => ({ method: 'PUT', path: '/admin/organisation', body: { name: 'Default organisation' } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage workspaces', action: 'workspaces.create', label: 'POST /admin/workspaces',
    req: (w) => ({ method: 'POST', path: '/admin/workspaces', body: { name: `Created ${w.seq()}` } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage workspaces', action: 'workspaces.update', label: 'PUT /admin/workspaces/A',
    req: (w) => ({ method: 'PUT', path: `/admin/workspaces/${w.A}`, body: { description: 'changed' } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage workspaces', action: 'workspaces.delete', label: 'DELETE /admin/workspaces/{throwaway}',
    req: async (w) => {
      const created = await w.call('POST', '/admin/workspaces', w.gateway.adminKey, { name: `Throwaway ${w.seq()}` });
      assert.equal(created.status, 200);
      return { method: 'DELETE', path: `/admin/workspaces/${created.body.id}` };
    },
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage users and permissions', action: 'organisation_users.list', label: 'GET /admin/users',
    req: () => ({ method: 'GET', path: '/admin/users' }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage users and permissions', action: 'organisation_users.update', label: 'PUT /admin/users/{member} role',
    req: (w) => ({ method: 'PUT', path: `/admin/users/${w.memberId}`, body: { role: 'member' } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage users and permissions', action: 'user_invites.create', label: 'POST /admin/users/invites',
    req: (w) => ({ method: 'POST', path: '/admin/users/invites', body: { email: `invitee${w.seq()}@example.com`, role: 'member', workspaces: [] } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage users and permissions', action: 'user_invites.list', label: 'GET /admin/users/invites',
    req: () => ({ method: 'GET', path: '/admin/users/invites' }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: manage users and permissions (members of A)', action: 'workspace_users.update', label: 'PUT /admin/workspaces/A/users/{member}',
    req: (w) => ({ method: 'PUT', path: `/admin/workspaces/${w.A}/users/${w.memberId}`, body: { role: 'member' } }),
    expect: { ...ADMIN_KEYS, managerA: '2xx', svcA: 403, memberA: 403 } },
  { seed: 'Operation: manage users and permissions (members of A)', action: 'workspace_users.create', label: 'POST /admin/workspaces/A/users',
    req: async (w) => {
      // the outsider leaves A first (200 or 404), so a wrong grant shows as 200 and not as a 409
      await w.call('DELETE', `/admin/workspaces/${w.A}/users/${w.outsiderId}`, w.gateway.adminKey);
      return { method: 'POST', path: `/admin/workspaces/${w.A}/users`, body: { users: [{ id: w.outsiderId, role: 'member' }] } };
    },
    expect: { ...ADMIN_KEYS, managerA: '2xx', svcA: 403, memberA: 403 } },
  { seed: 'Operation: manage users and permissions (not B for A\'s manager)', action: 'workspace_users.update', label: 'PUT /admin/workspaces/B/users/{member}',
    req: (w) => ({ method: 'PUT', path: `/admin/workspaces/${w.B}/users/${w.memberId}`, body: { role: 'member' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: audit logs (admin keys only; code rule, no seed row)', action: 'audit_logs.list', label: 'GET /audit-logs',
    req: (w) => ({ method: 'GET', path: `/audit-logs?start_time=2000-01-01T00:00:00Z&end_time=2100-01-01T00:00:00Z&organisation_id=${w.orgId}` }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  // configs: a workspace key manages its own workspace's (members read only); admin keys every workspace's and
  // the organisation-wide ones
  { seed: 'Operation: create or manage configs', action: 'configs.create', label: 'POST /configs in A',
    req: (w) => ({ method: 'POST', path: '/configs', body: { name: `Config ${w.seq()}`, config: CONFIG, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage configs (single workspace: not B)', action: 'configs.create', label: 'POST /configs in B',
    req: (w) => ({ method: 'POST', path: '/configs', body: { name: `Config ${w.seq()}`, config: CONFIG, workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage configs', action: 'configs.update', label: 'PUT /configs/{config of A}',
    req: async (w) => ({ method: 'PUT', path: `/configs/${await savedConfig(w, w.A)}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage configs', action: 'configs.delete', label: 'DELETE /configs/{config of A}',
    req: async (w) => ({ method: 'DELETE', path: `/configs/${await savedConfig(w, w.A)}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage configs', action: 'configs.read', label: 'GET /configs/{config of A}',
    req: async (w) => ({ method: 'GET', path: `/configs/${await savedConfig(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: create or manage configs', action: 'configs.list', label: 'GET /configs',
    req: () => ({ method: 'GET', path: '/configs' }), expect: EVERYONE },
  { seed: 'Operation: create or manage configs (single workspace: not B)', action: 'configs.update', label: 'PUT /configs/{config of B}',
    req: async (w) => ({ method: 'PUT', path: `/configs/${await savedConfig(w, w.B)}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage configs (single workspace: not B)', action: 'configs.read', label: 'GET /configs/{config of B}/versions',
    req: async (w) => ({ method: 'GET', path: `/configs/${await savedConfig(w, w.B)}/versions` }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage configs (organisation-wide: admin keys)', action: 'configs.update', label: 'PUT /configs/{organisation-wide}',
    req: async (w) => ({ method: 'PUT', path: `/configs/${await savedConfig(w, undefined)}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage providers', action: 'providers.*', label: 'providers group', todo: 'providers group not implemented yet',
    expect: { ...ADMIN_KEYS, svcA: '2xx' } },
  { seed: 'Operation: access analytics', action: 'analytics.*', label: 'analytics group', todo: 'analytics group not implemented yet',
    expect: { ...ADMIN_KEYS, svcA: '2xx' } },
  { seed: 'Operation: create or update feedback', action: 'feedback.*', label: 'feedback group', todo: 'feedback group not implemented yet',
    expect: { owner: 403, admin: 403, svcA: '2xx' } },
];

const ISOLATION_TABLE: Row[] = [
  { seed: 'Access scope: a workspace key reads its own workspace', action: 'workspaces.read', label: 'GET /admin/workspaces/A',
    req: (w) => ({ method: 'GET', path: `/admin/workspaces/${w.A}` }), expect: EVERYONE },
  { seed: 'Access scope: never another workspace', action: 'workspaces.read', label: 'GET /admin/workspaces/B',
    req: (w) => ({ method: 'GET', path: `/admin/workspaces/${w.B}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Access scope: never another workspace', action: 'workspace_users.list', label: 'GET /admin/workspaces/B/users',
    req: (w) => ({ method: 'GET', path: `/admin/workspaces/${w.B}/users` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Access scope: never another workspace', action: 'api_keys.list', label: 'GET /api-keys?workspace_id=B',
    req: (w) => ({ method: 'GET', path: `/api-keys?workspace_id=${w.B}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Access scope: never another workspace', action: 'api_keys.read', label: 'GET /api-keys/{key of B}',
    req: (w) => ({ method: 'GET', path: `/api-keys/${w.svcB}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Access scope: never another workspace', action: 'api_keys.update', label: 'PUT /api-keys/{key of B}',
    req: (w) => ({ method: 'PUT', path: `/api-keys/${w.svcB}`, body: { name: 'renamed' } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
];

const is2xx = (status: number) => status >= 200 && status < 300;

const CONFIG = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'anthropic' }] };

/** A fresh config, made by the bootstrap admin key, in `workspaceId` (organisation-wide when undefined); its id. */
async function savedConfig(w: World, workspaceId: string | undefined): Promise<string> {
  const body = { name: `Config ${w.seq()}`, config: CONFIG, ...(workspaceId ? { workspace_id: workspaceId } : {}) };
  const created = await w.call('POST', '/configs', w.gateway.adminKey, body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.data.id;
}

for (const backend of testBackends()) {
  describe(`authorisation matrix on ${backend.name}`, () => {
    let drop: () => Promise<void> = async () => {};
    const w = {} as World;
    let counter = 0;

    const db = () => w.gateway.gateway.database.db;
    async function auditCount(action: string, status: number, keyId: string, outcome: string): Promise<number> {
      const rows = await db().select({ id: auditLogs.id }).from(auditLogs).where(and(
        eq(auditLogs.action, action), eq(auditLogs.responseStatusCode, status), eq(auditLogs.apiKeyId, keyId), eq(auditLogs.outcome, outcome),
      ));
      return rows.length;
    }
    async function ok(method: string, path: string, body?: unknown, key = w.gateway.adminKey) {
      const response = await w.call(method, path, key, body);
      assert.ok(is2xx(response.status), `${method} ${path} -> ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    }
    /** invites a user and accepts; returns the user id and its workspace user keys */
    async function user(email: string, workspaces: Array<{ id: string; role: string }>) {
      const invite = await ok('POST', '/admin/users/invites', { email, role: 'member', workspaces, workspace_api_key_details: { scopes: [...ALL_SCOPES] } });
      const token = new URL(invite.invite_link).searchParams.get('token');
      const accepted = await ok('POST', '/admin/users/invites/accept', { token }, undefined);
      return { id: accepted.id as string, keys: accepted.api_keys as Array<{ workspace_id: string; id: string; key: string }> };
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      w.gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      w.call = adminClient(w.gateway.baseURL);
      w.seq = () => ++counter;
      w.orgId = w.gateway.gateway.bootstrap.organisation.id;
      w.A = (await ok('POST', '/admin/workspaces', { name: 'Workspace A', slug: 'ws-a' })).id;
      w.B = (await ok('POST', '/admin/workspaces', { name: 'Workspace B', slug: 'ws-b' })).id;
      const [ownerRow] = await db().select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, hashApiKey(w.gateway.adminKey)));
      const admin = await ok('POST', '/api-keys/organisation/service', { name: 'org admin', scopes: [...ALL_SCOPES] });
      const svcA = await ok('POST', '/api-keys/workspace/service', { name: 'svc A', scopes: [...ALL_SCOPES], workspace_id: w.A });
      w.svcB = (await ok('POST', '/api-keys/workspace/service', { name: 'svc B', scopes: ['completions.write'], workspace_id: w.B })).id;
      const manager = await user('manager@example.com', [{ id: w.A, role: 'manager' }]);
      const member = await user('member@example.com', [{ id: w.A, role: 'member' }, { id: w.B, role: 'member' }]);
      w.memberId = member.id;
      w.outsiderId = (await user('outsider@example.com', [])).id;
      w.keys = {
        owner: { id: ownerRow!.id, key: w.gateway.adminKey },
        admin,
        svcA,
        managerA: manager.keys[0]!,
        memberA: member.keys.find((key) => key.workspace_id === w.A)!,
      };
    });

    after(async () => {
      await w.gateway?.close();
      await drop();
    });

    function rows(title: string, table: Row[]) {
      describe(title, () => {
        for (const row of table) {
          for (const [caller, expected] of Object.entries(row.expect) as Array<[Caller, Expected]>) {
            const name = `${row.seed} | ${caller}: ${row.label} -> ${expected}`;
            if (row.todo) {
              test(name, { todo: row.todo });
              continue;
            }
            test(name, async () => {
              const req = await row.req!(w);
              // 403s are 'denied'; a hidden workspace's 404 on a change is a 'failed' attempt; reads are audited on 403 only
              const outcome = expected === 403 ? 'denied' : expected === 404 && req.method !== 'GET' ? 'failed' : undefined;
              const auditBefore = outcome ? await auditCount(row.action, expected as number, w.keys[caller].id, outcome) : 0;
              const response = await w.call(req.method, req.path, w.keys[caller].key, req.body);
              const detail = `${req.method} ${req.path} -> ${response.status} ${JSON.stringify(response.body)}`;
              if (expected === '2xx') assert.ok(is2xx(response.status), detail);
              else assert.equal(response.status, expected, detail);
              if (expected === 403) assert.notEqual(response.body.error.code, 'missing_scope', `a role denial, not a scope one: ${detail}`);
              if (outcome) {
                const auditAfter = await auditCount(row.action, expected as number, w.keys[caller].id, outcome);
                assert.equal(auditAfter, auditBefore + 1, `one ${row.action} audit record with outcome ${outcome}`);
              }
            });
          }
        }
      });
    }

    rows('role table', ROLE_TABLE);
    rows('operation table', OPERATION_TABLE);
    rows('workspace isolation', ISOLATION_TABLE);

    test('lists of a workspace key hold its own workspace only', async () => {
      for (const caller of ['svcA', 'managerA', 'memberA'] as const) {
        const workspaces = await ok('GET', '/admin/workspaces', undefined, w.keys[caller].key);
        assert.deepEqual(workspaces.data.map((row: { id: string }) => row.id), [w.A], caller);
        const keys = await ok('GET', '/api-keys?page_size=100', undefined, w.keys[caller].key);
        assert.ok(keys.data.length > 0 && keys.data.every((row: { workspace_id: string }) => row.workspace_id === w.A), caller);
      }
    });

    describe('scope denials', () => {
      async function keyWith(path: string, scopes: string[], extra: Record<string, unknown> = {}) {
        return ok('POST', `/api-keys/${path}`, { name: 'limited', scopes, ...extra }) as Promise<{ id: string; key: string }>;
      }
      async function deniedForScope(key: { id: string; key: string }, action: string, method: string, path: string, body?: unknown, code = 'missing_scope') {
        const auditBefore = await auditCount(action, 403, key.id, 'denied');
        const response = await w.call(method, path, key.key, body);
        assert.equal(response.status, 403, JSON.stringify(response.body));
        assert.equal(response.body.error.code, code);
        assert.equal(await auditCount(action, 403, key.id, 'denied'), auditBefore + 1);
      }

      test('an admin key without organisations.update cannot change the settings', async () => {
        const key = await keyWith('organisation/service', ['organisations.read']);
        await ok('GET', '/admin/organisation', undefined, key.key);
        await deniedForScope(key, 'organisations.update', 'PUT', '/admin/organisation', { name: 'x' });
      });

      test('a workspace key without workspaces.read cannot read its own workspace', async () => {
        const key = await keyWith('workspace/service', ['completions.write'], { workspace_id: w.A });
        await deniedForScope(key, 'workspaces.read', 'GET', `/admin/workspaces/${w.A}`);
      });

      test('a manager\'s key without workspace_users.update cannot change members', async () => {
        const managerId = (await ok('GET', '/admin/users?email=manager@example.com')).data[0].id;
        const key = await keyWith('workspace/user', ['workspace_users.read'], { workspace_id: w.A, user_id: managerId });
        await deniedForScope(key, 'workspace_users.update', 'PUT', `/admin/workspaces/${w.A}/users/${w.memberId}`, { role: 'member' });
      });

      test('an invite cannot hand out key scopes the inviting key does not hold', async () => {
        const key = await keyWith('organisation/service', ['user_invites.create']);
        const body = { email: `escalate${w.seq()}@example.com`, role: 'member', workspaces: [{ id: w.A, role: 'manager' }], workspace_api_key_details: { scopes: ['workspaces.delete'] } };
        await deniedForScope(key, 'user_invites.create', 'POST', '/admin/users/invites', body, 'scope_escalation');
        await ok('POST', '/admin/users/invites', { ...body, workspace_api_key_details: { scopes: [] } }, key.key);
      });
    });

    describe('401 without a valid key', () => {
      const sample: Array<[string, string, unknown?]> = [
        ['GET', '/admin/organisation'],
        ['POST', '/api-keys/organisation/service', { name: 'x', scopes: [] }],
        ['GET', '/admin/workspaces'],
        ['GET', '/admin/users'],
        ['POST', '/admin/users/invites', { email: 'x@example.com', role: 'member', workspaces: [] }],
        ['GET', '/audit-logs'],
      ];
      for (const [method, path, body] of sample) {
        test(`${method} ${path}: no key and a bogus key are 401`, async () => {
          const missing = await w.call(method, path, undefined, body);
          assert.equal(missing.status, 401);
          assert.equal(missing.body.error.code, 'missing_api_key');
          const bogus = await w.call(method, path, `gw_${'x'.repeat(43)}`, body);
          assert.equal(bogus.status, 401);
          assert.equal(bogus.body.error.code, 'invalid_api_key');
        });
      }
    });
  });
}
