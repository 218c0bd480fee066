/**
 * A workspace member's key in the console: it may read, but its role cannot change the workspace, so no action it
 * cannot take is shown, and the console says why; sections its key may not read say so. The gateway itself is
 * asked too, so the hidden actions are ones the API really refuses.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { launchBrowser, openSection, requireBuiltConsole, screenshot, signIn } from './browser.ts';

let gateway: TestGateway;
let browser: Browser;

before(async () => {
  requireBuiltConsole();
  gateway = await startTestGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gateway?.close();
});

/** What a member holds: reads, and the scopes of changes its role still forbids. */
const MEMBER_SCOPES = [
  'completions.write', 'configs.list', 'configs.read', 'configs.create', 'configs.update', 'configs.delete',
  'logs.list', 'logs.view', 'analytics.view', 'workspace_user_api_keys.list', 'workspace_user_api_keys.create',
  'workspace_user_api_keys.update', 'workspace_user_api_keys.delete', 'workspace_users.list', 'workspace_users.read',
  'providers.list', 'providers.create', 'rate_limits_policies.list', 'rate_limits_policies.create', 'usage_limits_policies.list',
];

const ACTION = /^(New|Create|Save|Edit|Delete|Revoke|Rotate|Remove|Archive|Invite|Add|Start|Cancel)\b/;

async function visibleActions(page: Page): Promise<string[]> {
  const names: string[] = [];
  for (const button of await page.locator('main button:visible').all()) {
    const name = ((await button.getAttribute('aria-label')) ?? (await button.textContent()) ?? '').trim();
    if (ACTION.test(name)) names.push(name);
  }
  return names;
}

test('a workspace member sees no action it cannot take, and why', { timeout: 50_000 }, async () => {
  const call = adminClient(gateway.baseURL);
  const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);
  const workspace = await admin('POST', '/admin/workspaces', { name: 'Members only', slug: 'members-only' });
  assert.equal(workspace.status, 200);
  const saved = await admin('POST', '/configs', { name: 'Shared', workspace_id: 'members-only', config: { retry: { attempts: 1 } } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const policy = await admin('POST', '/policies/rate-limits', {
    name: 'Team cap', workspace_id: 'members-only', conditions: [{ key: 'workspace_id', value: workspace.body.id }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 30,
  });
  assert.equal(policy.status, 200, JSON.stringify(policy.body));
  const invite = await admin('POST', '/admin/users/invites', {
    email: 'member@example.com', role: 'member', workspaces: [{ id: workspace.body.id, role: 'member' }], workspace_api_key_details: { scopes: MEMBER_SCOPES },
  });
  assert.equal(invite.status, 200, JSON.stringify(invite.body));
  const token = new URL(invite.body.invite_link).searchParams.get('token');
  const accepted = await call('POST', '/admin/users/invites/accept', undefined, { token, first_name: 'Mia' });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  const memberKey: string = accepted.body.api_keys[0].key;

  // the API refuses what the console will hide, though the key holds the scopes
  const refused = await call('POST', '/configs', memberKey, { name: 'Mine', config: { retry: { attempts: 1 } } });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal((await call('POST', '/api-keys/workspace/user', memberKey, { name: 'x', scopes: ['completions.write'], workspace_id: workspace.body.id })).status, 403);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await signIn(page, gateway.origin, memberKey);
  await page.getByText('(workspace-user, member)').waitFor();

  await openSection(page, 'Configs');
  await page.getByRole('link', { name: 'Shared' }).waitFor();
  assert.deepEqual(await visibleActions(page), []);
  await page.getByTestId('hidden-actions').getByText('Your role in this workspace (member) cannot change it').waitFor();
  await screenshot(page, 'member-configs');
  await page.getByRole('link', { name: 'Shared' }).click();
  await page.getByRole('heading', { name: /Shared/, level: 1 }).waitFor();
  assert.equal(await page.getByLabel('Config (JSON)').getAttribute('readonly'), '');
  assert.deepEqual(await visibleActions(page), [], 'no save or archive on a config');
  await page.getByRole('button', { name: 'Send test request' }).waitFor();

  await openSection(page, 'API keys');
  await page.getByRole('cell', { name: 'you' }).or(page.getByText('you', { exact: true })).first().waitFor();
  assert.deepEqual(await visibleActions(page), []);
  assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);

  await openSection(page, 'Workspaces');
  await page.getByRole('heading', { name: 'Members of the selected workspace' }).waitFor();
  await page.getByRole('cell', { name: 'member@example.com' }).waitFor();
  assert.deepEqual(await visibleActions(page), []);
  await page.getByText('Hidden.').first().waitFor();

  for (const [section, scope] of [['Audit log', /audit|admin API key/], ['Users & invites', /admin API key|organisation_users/]] as const) {
    await openSection(page, section);
    await page.locator('.notice').filter({ hasText: scope }).first().waitFor();
    assert.deepEqual(await visibleActions(page), [], section);
  }
  await openSection(page, 'Limits');
  await page.getByRole('heading', { name: 'Usage-limit policies' }).waitFor();
  await page.getByRole('cell', { name: 'Team cap' }).waitFor();
  assert.deepEqual(await visibleActions(page), [], 'no edit or delete on a policy');
  assert.equal((await call('PUT', `/policies/rate-limits/${policy.body.id}`, memberKey, { value: 1 })).status, 403, 'the API refuses the edit too');
  await openSection(page, 'Logs');
  await page.getByRole('heading', { name: 'Export jobs' }).waitFor();
  await page.getByText('Your key lacks the `logs.export` scope.').waitFor();
  assert.deepEqual(await visibleActions(page), []);
  await screenshot(page, 'member-logs');

  assert.deepEqual(failures, []);
  await context.close();
});
