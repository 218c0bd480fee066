/**
 * The admin console in a real browser against the real server: sign in with the admin key, create a workspace
 * and a key (its secret shown once), save a config with a validation error (shown at its path) then fixed, save
 * a second version and see the diff, send a test request through it with the new key, find it in the live logs,
 * see it counted in analytics (the API's own numbers, grouped by provider and key), a rate-limit policy created
 * from its form (a validation error at its field) with its live count, an integration created and edited, the
 * masked credentials of a config saved back unchanged, revoke the key and see the next request refused.
 * Screenshots of each main page land in docs/console/. Also the static route itself: content types, caching,
 * security headers, the SPA fallback and path traversal.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { launchBrowser, openSection, requireBuiltConsole, screenshot, signIn } from './browser.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
let browser: Browser;

before(async () => {
  requireBuiltConsole();
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.close();
});

const target = (model: string) => ({ provider: 'openai', api_key: 'sk-upstream', custom_host: upstream.baseUrl, override_params: { model } });

function configText(first: Record<string, unknown>, second: string): string {
  return JSON.stringify({ strategy: { mode: 'fallback' }, targets: [first, target(second)] }, null, 2);
}

test('the console route: index without cache, hashed assets cached, strict headers, SPA fallback, no traversal', async () => {
  const index = await fetch(`${gateway.origin}/console`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(index.headers.get('cache-control'), 'no-cache');
  const csp = index.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(index.headers.get('referrer-policy'), 'no-referrer');
  const html = await index.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(asset, html);
  const script = await fetch(`${gateway.origin}${asset}`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.match(script.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
  assert.equal(script.headers.get('x-content-type-options'), 'nosniff');
  const built = await readFile(path.join(process.cwd(), 'dist', asset.slice(1)), 'utf8');
  assert.equal(await script.text(), built);

  const page = await fetch(`${gateway.origin}/console/logs/deep/link`);
  assert.equal(page.status, 200);
  assert.equal(await page.text(), html, 'a page path answers the app');
  // encoded `..` and `\` reach the handler decoded; a plain `%2e%2e` is resolved by the client before it is sent
  for (const missing of ['/console/assets/nope.js', '/console/..%2f..%2fpackage.json', '/console/assets/..%2f..%2f..%2fpackage.json', '/console/..%5cpackage.json']) {
    const answer = await fetch(`${gateway.origin}${missing}`);
    assert.equal(answer.status, 404, missing);
    assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'console_file_not_found', missing);
  }
  const head = await fetch(`${gateway.origin}/console/`, { method: 'HEAD' });
  assert.equal(head.status, 200);
});

async function waitForText(page: Page, testId: string, pattern: RegExp, timeout = 15_000): Promise<string> {
  const locator = page.getByTestId(testId);
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = (await locator.first().textContent({ timeout }).catch(() => '')) ?? '';
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`${testId} never matched ${pattern}: last "${text}"`);
    await page.waitForTimeout(200);
  }
}

test('sign in, workspace, key, config with a validation error then fixed, try it, logs, analytics, revoke', { timeout: 55_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // the refusals this flow provokes on purpose; any other failed call is a bug
  const expected = [/^400 POST \/v1\/configs$/, /^400 POST \/v1\/policies\/rate-limits$/, /^401 GET \/v1\/api-keys$/, /^401 POST \/v1\/chat\/completions$/];
  page.on('response', (response) => {
    const seen = `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
    if (response.status() >= 400 && !expected.some((pattern) => pattern.test(seen))) errors.push(seen);
  });

  // a wrong key is refused in plain words; the right one signs in, and is kept in session storage only
  await page.goto(`${gateway.origin}/console/`);
  await screenshot(page, 'sign-in');
  await page.getByLabel('API key').fill('not-a-real-key-0123456789');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid, revoked or expired API key' }).waitFor();
  await signIn(page, gateway.origin, gateway.adminKey);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('gateway-console-key')), gateway.adminKey);
  assert.equal(await page.evaluate(() => document.cookie), '');
  assert.doesNotMatch(page.url(), new RegExp(gateway.adminKey));

  // workspace
  await openSection(page, 'Workspaces');
  await page.getByLabel('Name').fill('Team A');
  await page.getByLabel('Slug (optional)').fill('team-a');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('cell', { name: 'team-a', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Selected' }).waitFor();
  // the picker's options are rendered again from the new list: wait for it, then read what it shows
  const picker = page.getByRole('combobox', { name: /^Workspace/ });
  await picker.locator('option:checked', { hasText: 'Team A (team-a)' }).waitFor({ state: 'attached' });
  assert.equal(await picker.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent), 'Team A (team-a)');
  await screenshot(page, 'workspaces');

  // a workspace key, its secret shown once
  await openSection(page, 'API keys');
  await page.getByLabel('Name').fill('ci key');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByTestId('secret-value').textContent())!;
  assert.match(secret, /^gw_/);
  await screenshot(page, 'api-keys');
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor();
  assert.equal(await page.getByTestId('secret-value').count(), 0, 'the secret is gone once dismissed');

  // a rate-limit policy per key in this workspace, from the form: the API's validation error shows at its field
  await openSection(page, 'Limits');
  await page.getByRole('button', { name: 'New rate-limit policy' }).click();
  await page.getByLabel('Name (optional)').fill('Per key');
  await page.getByLabel('Limit', { exact: true }).fill('-1');
  await page.getByLabel('Per', { exact: true }).selectOption('rph');
  await page.getByRole('button', { name: 'Create rate-limit policy' }).click();
  const fieldError = page.getByTestId('field-error');
  await fieldError.waitFor();
  assert.equal(await page.getByLabel('Limit', { exact: true }).getAttribute('aria-invalid'), 'true', 'the error is at the Limit field');
  assert.ok((await fieldError.textContent())!.length > 0, 'the API\'s message');
  await page.getByLabel('Limit', { exact: true }).fill('60');
  await page.getByRole('button', { name: 'Create rate-limit policy' }).click();
  await page.getByRole('cell', { name: '60 requests rph' }).waitFor();

  // a config: the API's validation error is shown at its path, then fixed
  await openSection(page, 'Configs');
  await page.getByRole('button', { name: 'New config' }).click();
  await page.getByLabel('Name').fill('Fallback');
  const editor = page.getByLabel('Config (JSON)');
  await editor.fill(configText({ ...target('error-500'), retry: { attempts: 'three' } }, 'good'));
  await page.getByRole('button', { name: 'Create config' }).click();
  assert.equal(await page.getByTestId('problem-path').textContent(), 'config.targets[0].retry.attempts');
  await page.getByTestId('config-problem').getByText('must be an integer').waitFor();
  assert.equal(await page.locator('#config-problem mark').textContent(), '"three"');
  assert.equal(await editor.evaluate((area: HTMLTextAreaElement) => area.value.slice(area.selectionStart, area.selectionEnd)), '"three"', 'the editor selects the faulty value');
  assert.equal(await editor.getAttribute('aria-invalid'), 'true');
  await screenshot(page, 'config-validation-error');
  await editor.fill(configText(target('error-500'), 'good'));
  await page.getByRole('button', { name: 'Create config' }).click();
  await page.getByRole('heading', { name: /Fallback/, level: 1 }).waitFor();

  // a second version and the diff between the two
  // the editor shows the stored credentials masked; saving them back unchanged keeps the stored ones
  const shown = await page.getByLabel('Config (JSON)').inputValue();
  assert.equal(shown.match(/"api_key": "\*{8}"/g)?.length, 2, shown);
  assert.doesNotMatch(shown, /sk-upstream/);
  await page.getByLabel('Config (JSON)').fill(shown.replace('"model": "good"', '"model": "good-v2"'));
  await page.getByRole('button', { name: 'Save new version' }).click();
  await page.getByText('2 versions, newest first.').waitFor();
  const diff = (await page.getByTestId('config-diff').textContent())!;
  assert.match(diff, /- +"model": "good"/);
  assert.match(diff, /\+ +"model": "good-v2"/);

  // try it with the new key: the fallback's second target answers
  await page.getByLabel(/Send with another gateway key/).fill(secret);
  await page.getByRole('button', { name: 'Send test request' }).click();
  assert.equal(await waitForText(page, 'try-status', /HTTP/), 'HTTP 200');
  assert.equal(await page.getByTestId('try-target').textContent(), 'config.targets[1]');
  await page.getByText('x-gateway-trace-id').first().waitFor({ state: 'attached' });
  await screenshot(page, 'config');
  const traceId = (await page.getByTestId('try-trace').textContent())!;
  const answered = upstream.requests.filter((recorded) => (recorded.json as { model?: string } | undefined)?.model === 'good-v2');
  assert.deepEqual(answered.map((recorded) => recorded.headers.authorization), ['Bearer sk-upstream'], 'the kept credential reached the upstream');

  // the request in the live logs (the table polls until the request log has written it), with its attempts
  await page.getByTestId('try-trace').click();
  await page.getByRole('heading', { name: 'Logs', level: 1 }).waitFor();
  assert.equal(await page.getByLabel('Trace id').inputValue(), traceId);
  await page.getByRole('cell', { name: traceId }).waitFor({ timeout: 15_000 });
  const row = page.getByRole('row').filter({ hasText: traceId });
  assert.match((await row.textContent())!, /openai.*good-v2.*200/);
  await row.getByRole('button').click();
  const detail = page.getByTestId('log-detail');
  await detail.getByText('config.targets[1]').first().waitFor();
  assert.match((await detail.getByRole('region').or(detail).first().textContent())!, /error-500/, 'the failed first attempt is shown');
  const columns = await page.locator('table.logs').evaluate((table: HTMLTableElement) => {
    const wrap = table.parentElement!;
    wrap.scrollLeft = wrap.scrollWidth;
    const box = wrap.getBoundingClientRect();
    const cells = [...table.querySelectorAll('tbody tr:first-child td')] as HTMLElement[];
    const trace = cells.at(-1)!.getBoundingClientRect();
    const seen = {
      clipped: cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1).length,
      traceInView: trace.left >= box.left - 1 && trace.right <= box.right + 1,
      // a cell laid out as anything but a table cell shrinks to its text, and the selected row's shade shows a gap
      notCells: cells.filter((cell) => getComputedStyle(cell).display !== 'table-cell').length,
    };
    wrap.scrollLeft = 0;
    return seen;
  });
  assert.deepEqual(columns, { clipped: 0, traceInView: true, notCells: 0 }, 'no column is cut; scrolled sideways, the trace id is in view; every cell is a table cell');
  await screenshot(page, 'logs');

  // counted in analytics, with the analytics API's own numbers
  await openSection(page, 'Analytics');
  const summary = await waitForText(page, 'summary-requests', /total \d+/);
  const api = adminClient(gateway.baseURL);
  const graph = await api('GET', '/analytics/graphs/requests?workspace_slug=team-a', gateway.adminKey);
  assert.equal(graph.status, 200);
  assert.equal(graph.body.summary.total, 1);
  assert.equal(summary, `total ${graph.body.summary.total}`);
  await page.getByTestId('analytics-groups').getByText('good-v2').waitFor();
  await page.locator('.chart-box canvas').first().waitFor();
  await screenshot(page, 'analytics');
  await page.getByLabel('Group by').selectOption('providers');
  await page.getByTestId('analytics-groups').getByRole('cell', { name: 'openai', exact: true }).waitFor();
  await page.getByLabel('Group by').selectOption('api-keys');
  await page.getByTestId('analytics-groups').getByRole('cell', { name: 'ci key', exact: true }).waitFor();
  const byKey = await api('GET', '/analytics/groups/api-keys?workspace_slug=team-a', gateway.adminKey);
  assert.equal(byKey.body.data[0].api_key_name, 'ci key');
  assert.match((await page.getByTestId('analytics-groups').textContent())!, new RegExp(`ci key${byKey.body.data[0].requests}`));

  // the rate-limit policy's consumption, as the API counts it; then edited from its form
  await openSection(page, 'Limits');
  await page.getByRole('button', { name: 'Usage', exact: true }).click();
  const policies = await api('GET', '/policies/rate-limits?workspace_id=team-a', gateway.adminKey);
  const counted = await api('GET', `/policies/rate-limits/${policies.body.data[0].id}`, gateway.adminKey);
  assert.equal(counted.body.usage.length, 1, JSON.stringify(counted.body));
  const usage = page.getByTestId('rate-usage');
  await usage.getByText(counted.body.usage[0].entity).waitFor();
  assert.match((await usage.textContent())!, new RegExp(`${counted.body.usage[0].count} of 60`));
  await screenshot(page, 'limits');
  await page.getByRole('button', { name: 'Edit Per key' }).click();
  await page.getByLabel('Limit', { exact: true }).fill('100');
  await page.getByRole('button', { name: 'Save rate-limit policy' }).click();
  await page.getByRole('cell', { name: '100 requests rph' }).waitFor();

  // an integration created and renamed from its forms; its key shown masked
  await openSection(page, 'Providers');
  await page.getByRole('button', { name: 'New integration' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Upstream');
  await page.getByLabel('API key (optional)').fill('sk-integration-secret');
  await page.getByRole('button', { name: 'Create integration' }).click();
  await page.getByRole('cell', { name: 'Upstream', exact: true }).waitFor();
  assert.doesNotMatch((await page.locator('main').textContent())!, /sk-integration-secret/);
  await page.getByRole('button', { name: 'Edit Upstream' }).click();
  await page.getByText(/^Stored: sk-i\*{8}cret\. Leave empty to keep it\.$/).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Upstream two');
  await page.getByRole('button', { name: 'Save integration' }).click();
  await page.getByRole('cell', { name: 'Upstream two', exact: true }).waitFor();
  await screenshot(page, 'providers');

  // revoke the key: the next request with it is refused
  await openSection(page, 'API keys');
  await page.getByRole('button', { name: 'Revoke ci key' }).click();
  await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor({ state: 'detached' });
  await openSection(page, 'Configs');
  await page.getByRole('link', { name: 'Fallback' }).click();
  await page.getByLabel(/Send with another gateway key/).fill(secret);
  await page.getByRole('button', { name: 'Send test request' }).click();
  assert.equal(await waitForText(page, 'try-status', /HTTP 401/), 'HTTP 401');
  assert.equal(await page.getByTestId('try-error').textContent(), 'Invalid, revoked or expired API key.');

  // the audit log shows the revocation; the remaining pages for the docs, and the logs in dark
  await openSection(page, 'Audit log');
  await page.getByLabel('Action (e.g. api_keys.create)').fill('api_keys.delete');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('cell', { name: 'api_keys.delete' }).waitFor();
  await screenshot(page, 'audit-log');
  for (const [section, name] of [['Users & invites', 'users']] as const) {
    await openSection(page, section);
    await page.getByRole('status').first().waitFor({ state: 'detached' }).catch(() => {});
    await screenshot(page, name);
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await openSection(page, 'Logs');
  await page.getByRole('cell', { name: 'good-v2' }).first().waitFor();
  await screenshot(page, 'logs-dark');

  // a phone: one column, the menu behind a button
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Menu' }).click();
  await openSection(page, 'Analytics');
  await page.getByTestId('summary-requests').waitFor();
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375 + 1), 'no horizontal scroll at 375 px');
  await screenshot(page, 'analytics-phone');
  await page.getByRole('button', { name: 'Menu' }).click();
  await openSection(page, 'Logs');
  await page.getByRole('row').filter({ hasText: traceId }).getByRole('button').click();
  await detail.getByText('config.targets[1]').first().waitFor();
  assert.equal(await detail.evaluate((pane) => getComputedStyle(pane).position), 'fixed', 'the detail pane overlays the table');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375 + 1), 'no horizontal scroll with the detail open');
  await screenshot(page, 'logs-phone');
  await page.keyboard.press('Escape');
  await detail.waitFor({ state: 'detached' });

  assert.deepEqual(errors, []);
  await context.close();
});
