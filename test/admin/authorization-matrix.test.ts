/**
 * The seed's authorisation tables (Authentication §4: key kinds, roles, operations), walked row by row as data
 * over real HTTP, on every back-end of testBackends(). Every caller holds every scope, so the denials seen come
 * from roles and key kinds; scope denials have their own small block. 403s are checked for a 'denied' audit record.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { hashApiKey } from '../../src/auth/secrets.ts';
import { insertRequestLogs } from '../../src/storage/repositories/request-logs.ts';
import { saveUsageLimitEntities } from '../../src/storage/repositories/usage-limit-policies.ts';
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
  { seed: 'Operation: manage users and permissions (SCIM group mappings)', action: 'scim_workspaces.create', label: 'POST /scim/workspaces',
    req: (w) => ({ method: 'POST', path: '/scim/workspaces', body: { workspace_id: w.A, role: 'member', scim_group_name: `Matrix ${w.seq()}` } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
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
  // rate limits policies (code rule, no seed row; like configs): a workspace key manages its own workspace's (members
  // read only), admin keys every workspace's and the organisation-wide ones; another workspace's is hidden
  { seed: 'Operation: rate limits policies (in A)', action: 'rate_limits_policies.create', label: 'POST /policies/rate-limits in A',
    req: (w) => ({ method: 'POST', path: '/policies/rate-limits', body: { ...RATE_POLICY, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: rate limits policies (not B)', action: 'rate_limits_policies.create', label: 'POST /policies/rate-limits in B',
    req: (w) => ({ method: 'POST', path: '/policies/rate-limits', body: { ...RATE_POLICY, workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: rate limits policies (of A)', action: 'rate_limits_policies.update', label: 'PUT /policies/rate-limits/{policy of A}',
    req: async (w) => ({ method: 'PUT', path: `/policies/rate-limits/${await savedRatePolicy(w, w.A)}`, body: { value: 5 } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: rate limits policies (of A)', action: 'rate_limits_policies.delete', label: 'DELETE /policies/rate-limits/{policy of A}',
    req: async (w) => ({ method: 'DELETE', path: `/policies/rate-limits/${await savedRatePolicy(w, w.A)}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: rate limits policies (of A)', action: 'rate_limits_policies.read', label: 'GET /policies/rate-limits/{policy of A}',
    req: async (w) => ({ method: 'GET', path: `/policies/rate-limits/${await savedRatePolicy(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: rate limits policies', action: 'rate_limits_policies.list', label: 'GET /policies/rate-limits',
    req: () => ({ method: 'GET', path: '/policies/rate-limits' }), expect: EVERYONE },
  { seed: 'Operation: rate limits policies (not B)', action: 'rate_limits_policies.update', label: 'PUT /policies/rate-limits/{policy of B}',
    req: async (w) => ({ method: 'PUT', path: `/policies/rate-limits/${await savedRatePolicy(w, w.B)}`, body: { value: 5 } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: rate limits policies (organisation-wide: admin keys)', action: 'rate_limits_policies.update', label: 'PUT /policies/rate-limits/{organisation-wide}',
    req: async (w) => ({ method: 'PUT', path: `/policies/rate-limits/${await savedRatePolicy(w, undefined)}`, body: { value: 5 } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  // usage limits policies: the same rules as rate limits policies; resetting an entity is an update
  { seed: 'Operation: usage limits policies (in A)', action: 'usage_limits_policies.create', label: 'POST /policies/usage-limits in A',
    req: (w) => ({ method: 'POST', path: '/policies/usage-limits', body: { ...USAGE_POLICY, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: usage limits policies (not B)', action: 'usage_limits_policies.create', label: 'POST /policies/usage-limits in B',
    req: (w) => ({ method: 'POST', path: '/policies/usage-limits', body: { ...USAGE_POLICY, workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: usage limits policies (of A)', action: 'usage_limits_policies.update', label: 'PUT /policies/usage-limits/{policy of A}',
    req: async (w) => ({ method: 'PUT', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.A)).id}`, body: { credit_limit: 500 } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: usage limits policies (of A)', action: 'usage_limits_policies.delete', label: 'DELETE /policies/usage-limits/{policy of A}',
    req: async (w) => ({ method: 'DELETE', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.A)).id}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: usage limits policies (of A)', action: 'usage_limits_policies.read', label: 'GET /policies/usage-limits/{policy of A}?include_usage=true',
    req: async (w) => ({ method: 'GET', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.A)).id}?include_usage=true` }), expect: EVERYONE },
  { seed: 'Operation: usage limits policies (of A)', action: 'usage_limits_policies.read', label: 'GET /policies/usage-limits/{policy of A}/entities',
    req: async (w) => ({ method: 'GET', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.A)).id}/entities` }), expect: EVERYONE },
  { seed: 'Operation: usage limits policies (of A)', action: 'usage_limits_policies.reset_entity', label: 'PUT /policies/usage-limits/{policy of A}/entities/{entity}/reset',
    req: async (w) => {
      const { id, entityId } = await savedUsagePolicy(w, w.A);
      return { method: 'PUT', path: `/policies/usage-limits/${id}/entities/${entityId}/reset` };
    },
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: usage limits policies', action: 'usage_limits_policies.list', label: 'GET /policies/usage-limits',
    req: () => ({ method: 'GET', path: '/policies/usage-limits' }), expect: EVERYONE },
  { seed: 'Operation: usage limits policies (not B)', action: 'usage_limits_policies.update', label: 'PUT /policies/usage-limits/{policy of B}',
    req: async (w) => ({ method: 'PUT', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.B)).id}`, body: { credit_limit: 500 } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: usage limits policies (not B)', action: 'usage_limits_policies.read', label: 'GET /policies/usage-limits/{policy of B}/entities',
    req: async (w) => ({ method: 'GET', path: `/policies/usage-limits/${(await savedUsagePolicy(w, w.B)).id}/entities` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: usage limits policies (organisation-wide: admin keys)', action: 'usage_limits_policies.update', label: 'PUT /policies/usage-limits/{organisation-wide}',
    req: async (w) => ({ method: 'PUT', path: `/policies/usage-limits/${(await savedUsagePolicy(w, undefined)).id}`, body: { credit_limit: 500 } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  // integrations: organisation ones are managed by admin keys only (workspace keys read those enabled for their
  // workspace); a workspace key manages its own workspace's (members read only) and never sees another's
  { seed: 'Operation: create or manage providers (integrations in A)', action: 'integrations.create', label: 'POST /integrations in A',
    req: (w) => ({ method: 'POST', path: '/integrations', body: { name: 'Integration', slug: `int-${w.seq()}`, ai_provider_id: 'openai', workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (integrations: not B)', action: 'integrations.create', label: 'POST /integrations in B',
    req: (w) => ({ method: 'POST', path: '/integrations', body: { name: 'Integration', slug: `int-${w.seq()}`, ai_provider_id: 'openai', workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers (integrations of A)', action: 'integrations.update', label: 'PUT /integrations/{integration of A}',
    req: async (w) => ({ method: 'PUT', path: `/integrations/${await savedIntegration(w, 'A')}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (integrations of A)', action: 'integrations.delete', label: 'DELETE /integrations/{integration of A}',
    req: async (w) => ({ method: 'DELETE', path: `/integrations/${await savedIntegration(w, 'A')}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (integrations of A)', action: 'integrations.models.update', label: 'PUT /integrations/{integration of A}/models',
    req: async (w) => ({ method: 'PUT', path: `/integrations/${await savedIntegration(w, 'A')}/models`, body: { models: [{ slug: 'gpt-4o', enabled: false }] } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (integrations: not B)', action: 'integrations.update', label: 'PUT /integrations/{integration of B}',
    req: async (w) => ({ method: 'PUT', path: `/integrations/${await savedIntegration(w, 'B')}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers (organisation integrations: admin keys)', action: 'integrations.read', label: 'GET /integrations/{organisation, enabled for A}',
    req: async (w) => ({ method: 'GET', path: `/integrations/${await savedIntegration(w, 'organisation, enabled for A')}` }), expect: EVERYONE },
  { seed: 'Operation: create or manage providers (organisation integrations: admin keys)', action: 'integrations.read', label: 'GET /integrations/{organisation, not enabled for A}',
    req: async (w) => ({ method: 'GET', path: `/integrations/${await savedIntegration(w, 'organisation')}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers (organisation integrations: admin keys)', action: 'integrations.update', label: 'PUT /integrations/{organisation, enabled for A}',
    req: async (w) => ({ method: 'PUT', path: `/integrations/${await savedIntegration(w, 'organisation, enabled for A')}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage providers (organisation integrations: admin keys)', action: 'integrations.workspaces.update', label: 'PUT /integrations/{organisation, enabled for A}/workspaces',
    req: async (w) => ({ method: 'PUT', path: `/integrations/${await savedIntegration(w, 'organisation, enabled for A')}/workspaces`, body: { workspaces: [{ id: w.B, enabled: false }] } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: create or manage providers (integrations)', action: 'integrations.list', label: 'GET /integrations',
    req: () => ({ method: 'GET', path: '/integrations' }), expect: EVERYONE },
  // providers (and the legacy virtual keys over the same rows): a workspace key manages its own workspace's
  // (members read only); admin keys every workspace's
  { seed: 'Operation: create or manage providers', action: 'providers.create', label: 'POST /providers in A',
    req: async (w) => ({ method: 'POST', path: '/providers', body: { name: `Provider ${w.seq()}`, integration_id: await savedIntegration(w, 'organisation, enabled for A'), workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (single workspace: not B)', action: 'providers.create', label: 'POST /providers in B',
    req: async (w) => ({ method: 'POST', path: '/providers', body: { name: `Provider ${w.seq()}`, integration_id: await savedIntegration(w, 'B'), workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers', action: 'providers.update', label: 'PUT /providers/{provider of A}',
    req: async (w) => ({ method: 'PUT', path: `/providers/${await savedProvider(w, 'A')}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers', action: 'providers.delete', label: 'DELETE /providers/{provider of A}',
    req: async (w) => ({ method: 'DELETE', path: `/providers/${await savedProvider(w, 'A')}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers', action: 'providers.read', label: 'GET /providers/{provider of A}',
    req: async (w) => ({ method: 'GET', path: `/providers/${await savedProvider(w, 'A')}` }), expect: EVERYONE },
  { seed: 'Operation: create or manage providers', action: 'providers.list', label: 'GET /providers?workspace_id=A',
    req: (w) => ({ method: 'GET', path: `/providers?workspace_id=${w.A}` }), expect: EVERYONE },
  { seed: 'Operation: create or manage providers (single workspace: not B)', action: 'providers.update', label: 'PUT /providers/{provider of B}',
    req: async (w) => ({ method: 'PUT', path: `/providers/${await savedProvider(w, 'B')}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers (single workspace: not B)', action: 'providers.read', label: 'GET /providers/{provider of B}',
    req: async (w) => ({ method: 'GET', path: `/providers/${await savedProvider(w, 'B')}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: create or manage providers (legacy virtual keys)', action: 'virtual_keys.create', label: 'POST /virtual-keys in A',
    req: (w) => ({ method: 'POST', path: '/virtual-keys', body: { name: `Key ${w.seq()}`, provider: 'openai', key: 'sk-matrix', workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (legacy virtual keys)', action: 'virtual_keys.update', label: 'PUT /virtual-keys/{virtual key of A}',
    req: async (w) => ({ method: 'PUT', path: `/virtual-keys/${await savedVirtualKey(w, w.A)}`, body: { key: 'sk-rotated' } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: create or manage providers (legacy virtual keys)', action: 'virtual_keys.read', label: 'GET /virtual-keys/{virtual key of A}',
    req: async (w) => ({ method: 'GET', path: `/virtual-keys/${await savedVirtualKey(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: create or manage providers (legacy virtual keys: not B)', action: 'virtual_keys.delete', label: 'DELETE /virtual-keys/{virtual key of B}',
    req: async (w) => ({ method: 'DELETE', path: `/virtual-keys/${await savedVirtualKey(w, w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  // analytics: admin keys read every workspace (workspace_slug), a workspace key its own (workspace_slug ignored)
  { seed: 'Operation: access analytics (all workspaces: B)', action: 'analytics.view', label: 'GET /analytics/graphs/requests?workspace_slug=ws-b',
    req: () => ({ method: 'GET', path: '/analytics/graphs/requests?workspace_slug=ws-b' }), expect: EVERYONE },
  { seed: 'Operation: access analytics', action: 'analytics.view', label: 'GET /analytics/groups/ai-models',
    req: () => ({ method: 'GET', path: '/analytics/groups/ai-models' }), expect: EVERYONE },
  { seed: 'Operation: create or update feedback', action: 'feedback.create', label: 'POST /feedback',
    req: () => ({ method: 'POST', path: '/feedback', body: { trace_id: 'matrix-trace', value: 5 } }),
    expect: { owner: 403, admin: 403, svcA: '2xx', managerA: '2xx', memberA: '2xx' } },
  { seed: 'Operation: create or update feedback', action: 'feedback.update', label: 'PUT /feedback/{feedback of A}',
    req: async (w) => {
      const created = await w.call('POST', '/feedback', w.keys.svcA.key, { trace_id: 'matrix-trace', value: 1 });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      return { method: 'PUT', path: `/feedback/${created.body.feedback_ids[0]}`, body: { value: -2, weight: 0.5 } };
    },
    expect: { owner: 403, admin: 403, svcA: '2xx', managerA: '2xx', memberA: '2xx' } },
  // secret references (code rule, no seed row): admin keys write; a workspace key reads the references its
  // workspace may use (allow_all_workspaces or allowed_workspaces), and another is hidden
  { seed: 'Operation: secret references (admin keys write)', action: 'secret_references.create', label: 'POST /secret-references',
    req: (w) => ({ method: 'POST', path: '/secret-references', body: { name: `Secret ${w.seq()}`, manager_type: 'env', secret_path: 'OPENAI_API_KEY' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: secret references (admin keys write)', action: 'secret_references.update', label: 'PUT /secret-references/{usable by all}',
    req: async (w) => ({ method: 'PUT', path: `/secret-references/${await savedSecretReference(w, undefined)}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: secret references (admin keys write)', action: 'secret_references.delete', label: 'DELETE /secret-references/{usable by all}',
    req: async (w) => ({ method: 'DELETE', path: `/secret-references/${await savedSecretReference(w, undefined)}` }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: secret references (reads: what the workspace may use)', action: 'secret_references.list', label: 'GET /secret-references',
    req: () => ({ method: 'GET', path: '/secret-references' }), expect: EVERYONE },
  { seed: 'Operation: secret references (reads: what the workspace may use)', action: 'secret_references.read', label: 'GET /secret-references/{allowed for A}',
    req: async (w) => ({ method: 'GET', path: `/secret-references/${await savedSecretReference(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: secret references (reads: not B\'s)', action: 'secret_references.read', label: 'GET /secret-references/{allowed for B}',
    req: async (w) => ({ method: 'GET', path: `/secret-references/${await savedSecretReference(w, w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  // model pricing (no seed row; the configs rule): a workspace's prices are managed by its managers, the
  // organisation-wide ones by admin keys, and every key of the organisation reads what its requests pay
  { seed: 'Operation: model pricing (custom prices of A)', action: 'model_pricing.update', label: 'PUT /model-pricing/openai/{model} in A',
    req: (w) => ({ method: 'PUT', path: `/model-pricing/openai/matrix-${w.seq()}`, body: { ...MODEL_PRICE, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: model pricing (single workspace: not B)', action: 'model_pricing.update', label: 'PUT /model-pricing/openai/{model} in B',
    req: (w) => ({ method: 'PUT', path: `/model-pricing/openai/matrix-${w.seq()}`, body: { ...MODEL_PRICE, workspace_id: w.B } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: model pricing (custom prices of A)', action: 'model_pricing.delete', label: 'DELETE /model-pricing/openai/{price of A}',
    req: async (w) => ({ method: 'DELETE', path: `/model-pricing/openai/${await savedModelPrice(w, w.A)}?workspace_id=${w.A}` }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: model pricing (organisation-wide: admin keys)', action: 'model_pricing.delete', label: 'DELETE /model-pricing/openai/{organisation-wide}',
    // a workspace key addresses its own workspace's price, which is not there: it cannot reach the organisation's
    req: async (w) => ({ method: 'DELETE', path: `/model-pricing/openai/${await savedModelPrice(w, undefined)}` }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: model pricing (reads: what requests pay)', action: 'model_pricing.read', label: 'GET /model-pricing/openai/{organisation-wide}',
    req: async (w) => ({ method: 'GET', path: `/model-pricing/openai/${await savedModelPrice(w, undefined)}` }), expect: EVERYONE },
  { seed: 'Operation: model pricing (reads: not B\'s)', action: 'model_pricing.read', label: 'GET /model-pricing/openai/{price of B}?workspace_id=B',
    req: async (w) => ({ method: 'GET', path: `/model-pricing/openai/${await savedModelPrice(w, w.B)}?workspace_id=${w.B}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: model pricing (reads: what requests pay)', action: 'model_pricing.list', label: 'GET /model-pricing',
    req: () => ({ method: 'GET', path: '/model-pricing' }), expect: EVERYONE },
  // logs and log exports (scopes logs.*; code rule, no seed row): a workspace key its own workspace's, admin keys all
  { seed: 'Operation: logs (A)', action: 'logs.list', label: 'GET /logs', req: () => ({ method: 'GET', path: '/logs' }), expect: EVERYONE },
  { seed: 'Operation: logs (not B)', action: 'logs.list', label: 'GET /logs?workspace_id=B',
    req: (w) => ({ method: 'GET', path: `/logs?workspace_id=${w.B}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: logs (A)', action: 'logs.view', label: 'GET /logs/{log of A}',
    req: async (w) => ({ method: 'GET', path: `/logs/${await savedLog(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: logs (not B)', action: 'logs.view', label: 'GET /logs/{log of B}',
    req: async (w) => ({ method: 'GET', path: `/logs/${await savedLog(w, w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: logs (own workspace)', action: 'logs.write', label: 'POST /logs',
    req: () => ({ method: 'POST', path: '/logs', body: { request: { url: '/v1/x', body: {} }, response: { body: {} } } }), expect: EVERYONE },
  { seed: 'Operation: log exports (A)', action: 'log_exports.create', label: 'POST /logs/exports in A',
    req: (w) => ({ method: 'POST', path: '/logs/exports', body: { workspace_id: w.A, filters: {}, requested_data: [] } }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.create', label: 'POST /logs/exports in B',
    req: (w) => ({ method: 'POST', path: '/logs/exports', body: { workspace_id: w.B, filters: {}, requested_data: [] } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: log exports (A)', action: 'log_exports.list', label: 'GET /logs/exports', req: () => ({ method: 'GET', path: '/logs/exports' }), expect: EVERYONE },
  { seed: 'Operation: log exports (A)', action: 'log_exports.read', label: 'GET /logs/exports/{export of A}',
    req: async (w) => ({ method: 'GET', path: `/logs/exports/${await savedLogExport(w, w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.read', label: 'GET /logs/exports/{export of B}',
    req: async (w) => ({ method: 'GET', path: `/logs/exports/${await savedLogExport(w, w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: log exports (A)', action: 'log_exports.update', label: 'PUT /logs/exports/{export of A}',
    req: async (w) => ({ method: 'PUT', path: `/logs/exports/${await savedLogExport(w, w.A)}`, body: { filters: {} } }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.update', label: 'PUT /logs/exports/{export of B}',
    req: async (w) => ({ method: 'PUT', path: `/logs/exports/${await savedLogExport(w, w.B)}`, body: { filters: {} } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: log exports (A)', action: 'log_exports.start', label: 'POST /logs/exports/{export of A}/start',
    req: async (w) => ({ method: 'POST', path: `/logs/exports/${await savedLogExport(w, w.A)}/start` }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.start', label: 'POST /logs/exports/{export of B}/start',
    req: async (w) => ({ method: 'POST', path: `/logs/exports/${await savedLogExport(w, w.B)}/start` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: log exports (A)', action: 'log_exports.cancel', label: 'POST /logs/exports/{export of A}/cancel',
    req: async (w) => ({ method: 'POST', path: `/logs/exports/${await savedLogExport(w, w.A)}/cancel` }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.cancel', label: 'POST /logs/exports/{export of B}/cancel',
    req: async (w) => ({ method: 'POST', path: `/logs/exports/${await savedLogExport(w, w.B)}/cancel` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: log exports (A)', action: 'log_exports.download', label: 'GET /logs/exports/{finished export of A}/download',
    req: async (w) => ({ method: 'GET', path: `/logs/exports/${await savedLogExport(w, w.A, true)}/download` }), expect: EVERYONE },
  { seed: 'Operation: log exports (not B)', action: 'log_exports.download', label: 'GET /logs/exports/{finished export of B}/download',
    req: async (w) => ({ method: 'GET', path: `/logs/exports/${await savedLogExport(w, w.B, true)}/download` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  // the prompt library (collections, labels, partials; no seed row, the configs rule): a workspace key manages its own
  // workspace's (members read only), admin keys every workspace's and the organisation-wide labels
  { seed: 'Operation: prompt collections (in A)', action: 'collections.create', label: 'POST /collections in A',
    req: (w) => ({ method: 'POST', path: '/collections', body: { name: `Collection ${w.seq()}`, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: prompt collections (not B)', action: 'collections.create', label: 'POST /collections in B',
    req: (w) => ({ method: 'POST', path: '/collections', body: { name: `Collection ${w.seq()}`, workspace_id: w.B } }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: prompt collections (of A)', action: 'collections.update', label: 'PUT /collections/{collection of A}',
    req: async (w) => ({ method: 'PUT', path: `/collections/${await savedLibraryItem(w, 'collection', w.A)}`, body: { name: 'renamed' } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: prompt collections (of A)', action: 'collections.read', label: 'GET /collections/{collection of A}',
    req: async (w) => ({ method: 'GET', path: `/collections/${await savedLibraryItem(w, 'collection', w.A)}` }), expect: EVERYONE },
  { seed: 'Operation: prompt collections (not B)', action: 'collections.delete', label: 'DELETE /collections/{collection of B}',
    req: async (w) => ({ method: 'DELETE', path: `/collections/${await savedLibraryItem(w, 'collection', w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: labels (in A)', action: 'labels.create', label: 'POST /labels in A',
    req: (w) => ({ method: 'POST', path: '/labels', body: { name: `label-${w.seq()}`, workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: labels (organisation-wide: admin keys)', action: 'labels.update', label: 'PUT /labels/{organisation-wide}',
    req: async (w) => ({ method: 'PUT', path: `/labels/${await savedLibraryItem(w, 'label', undefined)}`, body: { description: 'changed' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_DENIED } },
  { seed: 'Operation: labels (organisation-wide)', action: 'labels.read', label: 'GET /labels/{organisation-wide}',
    req: async (w) => ({ method: 'GET', path: `/labels/${await savedLibraryItem(w, 'label', undefined)}` }), expect: EVERYONE },
  { seed: 'Operation: labels (not B)', action: 'labels.delete', label: 'DELETE /labels/{label of B}',
    req: async (w) => ({ method: 'DELETE', path: `/labels/${await savedLibraryItem(w, 'label', w.B)}` }), expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
  { seed: 'Operation: prompt partials (in A)', action: 'prompt_partials.create', label: 'POST /prompts/partials in A',
    req: (w) => ({ method: 'POST', path: '/prompts/partials', body: { name: `Partial ${w.seq()}`, string: 'text', workspace_id: w.A } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: prompt partials (of A)', action: 'prompt_partials.make_default', label: 'PUT /prompts/partials/{partial of A}/makeDefault',
    req: async (w) => ({ method: 'PUT', path: `/prompts/partials/${await savedLibraryItem(w, 'partial', w.A)}/makeDefault`, body: { version: 1 } }),
    expect: { ...ADMIN_KEYS, svcA: '2xx', managerA: '2xx', memberA: 403 } },
  { seed: 'Operation: prompt partials (of A)', action: 'prompt_partials.read', label: 'GET /prompts/partials/{partial of A}/versions',
    req: async (w) => ({ method: 'GET', path: `/prompts/partials/${await savedLibraryItem(w, 'partial', w.A)}/versions` }), expect: EVERYONE },
  { seed: 'Operation: prompt partials (not B)', action: 'prompt_partials.update', label: 'PUT /prompts/partials/{partial of B}',
    req: async (w) => ({ method: 'PUT', path: `/prompts/partials/${await savedLibraryItem(w, 'partial', w.B)}`, body: { string: 'new' } }),
    expect: { ...ADMIN_KEYS, ...WS_KEYS_HIDDEN } },
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

/** A request log row of `workspaceId`, written as the request log writes them; its id. */
async function savedLog(w: World, workspaceId: string): Promise<string> {
  const id = randomUUID();
  await insertRequestLogs(w.gateway.gateway.database.db, [{
    id, organisationId: w.orgId, workspaceId, createdAt: new Date(), traceId: randomUUID(), route: 'chat', method: 'POST', path: '/v1/chat/completions', status: 200, isSuccess: true, responseTimeMs: 1,
  }]);
  return id;
}

/** A fresh log export (bootstrap admin key) of `workspaceId`: a draft, or run to its end; its id. */
async function savedLogExport(w: World, workspaceId: string, finished = false): Promise<string> {
  const created = await w.call('POST', '/logs/exports', w.gateway.adminKey, { workspace_id: workspaceId, filters: {}, requested_data: ['id'] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  if (finished) {
    assert.equal((await w.call('POST', `/logs/exports/${created.body.id}/start`, w.gateway.adminKey)).status, 200);
    await w.gateway.gateway.app.logExportJobs.settled(created.body.id);
  }
  return created.body.id;
}

const CONFIG = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'anthropic' }] };

const RATE_POLICY = { conditions: [{ key: 'metadata.team', value: 'search' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 10 };

/** A fresh rate limits policy, made by the bootstrap admin key, in `workspaceId` (organisation-wide when undefined); its id. */
async function savedRatePolicy(w: World, workspaceId: string | undefined): Promise<string> {
  const created = await w.call('POST', '/policies/rate-limits', w.gateway.adminKey, { ...RATE_POLICY, ...(workspaceId ? { workspace_id: workspaceId } : {}) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

const USAGE_POLICY = { conditions: [{ key: 'metadata._team', value: 'search' }], group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: 1000 };

/** A fresh usage limits policy (admin key) in `workspaceId` (organisation-wide when undefined), with one entity; their ids. */
async function savedUsagePolicy(w: World, workspaceId: string | undefined): Promise<{ id: string; entityId: string }> {
  const created = await w.call('POST', '/policies/usage-limits', w.gateway.adminKey, { ...USAGE_POLICY, ...(workspaceId ? { workspace_id: workspaceId } : {}) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const entity = { policyId: created.body.id, valueKey: 'metadata._user:ada', currentUsage: '10', status: 'active' as const, periodStart: null, thresholdAlertedAt: null, exhaustedAlertedAt: null };
  await saveUsageLimitEntities(w.gateway.gateway.database.db, [entity]);
  const listed = await w.call('GET', `/policies/usage-limits/${created.body.id}/entities`, w.gateway.adminKey);
  return { id: created.body.id, entityId: listed.body.data[0].id };
}

/** A fresh integration, made by the bootstrap admin key, in workspace A or B, or of the organisation; its id. */
async function savedIntegration(w: World, where: 'A' | 'B' | 'organisation' | 'organisation, enabled for A'): Promise<string> {
  const workspace = where === 'A' ? { workspace_id: w.A } : where === 'B' ? { workspace_id: w.B } : {};
  const body = { name: `Integration ${w.seq()}`, ai_provider_id: 'openai', create_default_provider: false, ...workspace };
  const created = await w.call('POST', '/integrations', w.gateway.adminKey, body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  if (where === 'organisation, enabled for A') {
    const enabled = await w.call('PUT', `/integrations/${created.body.id}/workspaces`, w.gateway.adminKey, { workspaces: [{ id: w.A, enabled: true, create_default_provider: false }] });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
  }
  return created.body.id;
}

/** A fresh provider, made by the bootstrap admin key in workspace A (on an organisation integration enabled for A) or B (on B's own); its id. */
async function savedProvider(w: World, where: 'A' | 'B'): Promise<string> {
  const integration = await savedIntegration(w, where === 'A' ? 'organisation, enabled for A' : 'B');
  const body = { name: `Provider ${w.seq()}`, integration_id: integration, workspace_id: where === 'A' ? w.A : w.B };
  const created = await w.call('POST', '/providers', w.gateway.adminKey, body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

/** A fresh virtual key, made by the bootstrap admin key in `workspaceId`; its id. */
async function savedVirtualKey(w: World, workspaceId: string): Promise<string> {
  const created = await w.call('POST', '/virtual-keys', w.gateway.adminKey, { name: `Key ${w.seq()}`, provider: 'openai', key: 'sk-matrix', workspace_id: workspaceId });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.data.id;
}

/** A fresh `sealed` secret reference, made by the bootstrap admin key, usable by `workspaceId` only (all when undefined); its id. */
async function savedSecretReference(w: World, workspaceId: string | undefined): Promise<string> {
  const body = { name: `Secret ${w.seq()}`, manager_type: 'sealed', auth_config: { secret_value: 'sk-matrix' }, ...(workspaceId ? { allowed_workspaces: [workspaceId] } : {}) };
  const created = await w.call('POST', '/secret-references', w.gateway.adminKey, body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

const MODEL_PRICE = { pay_as_you_go: { request_token: { price: 0.0001 }, response_token: { price: 0.0003 } } };

/** A fresh custom price of an openai model, set by the bootstrap admin key in `workspaceId` (organisation-wide when undefined); the model. */
async function savedModelPrice(w: World, workspaceId: string | undefined): Promise<string> {
  const model = `matrix-${w.seq()}`;
  const created = await w.call('PUT', `/model-pricing/openai/${model}`, w.gateway.adminKey, { ...MODEL_PRICE, ...(workspaceId ? { workspace_id: workspaceId } : {}) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return model;
}

/** A fresh collection, label or partial, made by the bootstrap admin key in `workspaceId` (a label: organisation-wide when undefined); its id. */
async function savedLibraryItem(w: World, kind: 'collection' | 'label' | 'partial', workspaceId: string | undefined): Promise<string> {
  const workspace = workspaceId ? { workspace_id: workspaceId } : {};
  const [path, body] = kind === 'collection' ? ['/collections', { name: `Collection ${w.seq()}` }]
    : kind === 'label' ? ['/labels', { name: `label-${w.seq()}` }]
      : ['/prompts/partials', { name: `Partial ${w.seq()}`, string: 'text' }];
  const created = await w.call('POST', path, w.gateway.adminKey, { ...body, ...workspace });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

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
