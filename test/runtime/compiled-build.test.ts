/**
 * The build `npm start` runs (scripts/build.mjs: one esbuild bundle in dist/, the migrations and the embedded
 * database's template beside it), started as package.json's `start` script starts it, on the embedded default: a
 * first start on an empty data dir (the template copied), a chat completion through a fake upstream stored in the
 * request log and read back, a database error answered as one (a unique violation raised inside PostgreSQL's
 * WebAssembly, compiled by Liftoff only: GATEWAY_WASM_COMPILER's default), then a restart on the same data dir that
 * finds what the first run stored. The other tests run the sources (each test file bundled with them by
 * scripts/test-bundle.mjs, or spawned through tsx); this is the one that runs the production bundle, so it needs `npm run build` first (npm ci runs it).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startFakeBedrock, type FakeBedrock } from '../fakes/bedrock-upstream.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { compiledStart, startNode, type Node } from '../helpers/gateway-process.ts';
import { customHostHeaders, TEST_ADMIN_KEY } from '../helpers/gateway.ts';

const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

describe('the compiled build, started as `npm start` starts it', () => {
  let upstream: FakeUpstream;
  let bedrock: FakeBedrock;
  let dataDir: string;
  let node: Node | undefined;
  const traceId = `compiled-${process.pid}`;

  before(async () => {
    if (!existsSync(path.join(DIST, 'main.js')) || !existsSync(path.join(DIST, 'pglite-template', 'PG_VERSION'))) {
      throw new Error('dist/ is missing or incomplete: run `npm run build` (npm ci runs it) before this test.');
    }
    [upstream, bedrock] = await Promise.all([startFakeUpstream(), startFakeBedrock({ AKIDBUNDLE: 'bundle-secret' })]);
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gw-compiled-')), 'data');
  });

  after(async () => {
    await closeAll(() => node?.stop(), () => upstream?.close(), () => bedrock?.close());
    if (dataDir) rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  test('dist/ is one bundle: a few files, no TypeScript, the worker and template beside main.js', () => {
    const files = readdirSync(DIST).filter((name) => name.endsWith('.js'));
    assert.ok(files.includes('main.js') && files.includes('pglite-worker.js'), files.join(' '));
    assert.ok(files.length < 60, `${files.length} JavaScript files in dist/`);
    assert.ok(existsSync(path.join(DIST, 'migrations', '0000_init.sql')));
  });

  test('a first start on an empty data dir serves a chat completion and stores its log row', async () => {
    node = await startNode(compiledStart().env, { command: compiledStart().command, dataDir });
    assert.ok(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION')), 'the template was copied into the data dir');
    const environment = readFileSync(`/proc/${node.pid}/environ`, 'utf8').split('\0');
    for (const [name, value] of Object.entries(compiledStart().env)) assert.ok(environment.includes(`${name}=${value}`), `${name} in the process's environment`);
    const response = await request(`${node.baseURL}/chat/completions`, {
      method: 'POST',
      headers: customHostHeaders(upstream.baseUrl, { 'x-gateway-trace-id': traceId }),
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello from the bundle' }] }),
    });
    const body = (await response.body.json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(response.statusCode, 200, JSON.stringify(body));
    assert.equal(typeof body.choices[0]!.message.content, 'string');
    const row = await loggedRow(node, traceId);
    assert.equal(row.response_status_code, 200);
    assert.equal(row.ai_model, 'gpt-4o-mini');
  });

  test('a Bedrock request is signed by the AWS signer the bundle loads on first use', async () => {
    const response = await request(`${node!.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        'x-gateway-api-key': TEST_ADMIN_KEY,
        'x-gateway-provider': 'bedrock',
        'x-gateway-custom-host': bedrock.baseUrl,
        'x-gateway-aws-region': 'us-east-1',
        'x-gateway-aws-access-key-id': 'AKIDBUNDLE',
        'x-gateway-aws-secret-access-key': 'bundle-secret',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'amazon.nova-pro-v1:0', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const text = await response.body.text();
    assert.equal(response.statusCode, 200, text);
    assert.equal(bedrock.requests.at(-1)?.signedBy?.accessKeyId, 'AKIDBUNDLE');
  });

  test('a unique violation inside the embedded database is answered as a conflict, not a crash', async () => {
    const admin = adminClient(node!.baseURL);
    const first = await admin('POST', '/admin/workspaces', TEST_ADMIN_KEY, { name: 'Bundle', slug: 'ws-bundle' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await admin('POST', '/admin/workspaces', TEST_ADMIN_KEY, { name: 'Bundle again', slug: 'ws-bundle' });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const health = await request(`${node!.origin}/health`);
    await health.body.dump();
    assert.equal(health.statusCode, 200);
  });

  test('a restart on the same data dir finds what the first run stored', async () => {
    await node!.stop();
    node = await startNode(compiledStart().env, { command: compiledStart().command, dataDir });
    const row = await loggedRow(node, traceId);
    assert.equal(row.ai_model, 'gpt-4o-mini');
    const listed = await adminClient(node.baseURL)('GET', '/admin/workspaces', TEST_ADMIN_KEY);
    assert.equal(listed.status, 200);
    assert.ok(JSON.stringify(listed.body).includes('ws-bundle'));
  });
});

interface LogItem {
  response_status_code: number;
  ai_model: string;
}

/** The request-log row of `traceId` once the writer's batch has reached the database (it flushes within a second). */
async function loggedRow(node: Node, traceId: string): Promise<LogItem> {
  const admin = adminClient(node.baseURL);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const listed = await admin('GET', `/logs?trace_id=${traceId}`, TEST_ADMIN_KEY);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const [row] = (listed.body as { data: LogItem[] }).data;
    if (row) return row;
    await sleep(100); // the log's batch has no event a client can wait on: poll, bounded
  }
  throw new Error(`no request-log row for trace id ${traceId} after 5 s`);
}
