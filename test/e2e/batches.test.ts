/**
 * /v1/batches through the gateway, on PGlite and on the real PostgreSQL, against a fake provider speaking OpenAI's
 * and Azure's batch wire formats: create (gateway_options read and kept from the provider), list (the workspace's
 * own), retrieve, cancel, and GET /v1/batches/{id}/output, whose usage and cost reach the request log once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startFilesBatchesUpstream, type FilesBatchesUpstream } from '../fakes/files-batches-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import { TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const JSONL = '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}}\n';
const outputLine = (id: string) => ({
  id: `batch_req_${id}`,
  custom_id: id,
  response: { status_code: 200, request_id: id, body: { id: `chatcmpl-${id}`, object: 'chat.completion', model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } } },
  error: null,
});

for (const backend of testBackends()) {
  describe(`batches (${backend.name})`, () => {
    let gateway: TestGateway;
    let upstream: FilesBatchesUpstream;
    let azure: FilesBatchesUpstream;
    let otherKey: string;
    let noScopeKey: string;

    const client = (key: string, headers: Record<string, string> = {}) =>
      new OpenAI({ baseURL: gateway.baseURL, apiKey: 'sk-provider', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, ...headers } });
    const raw = (method: string, path: string, key: string | undefined, headers: Record<string, string> = {}, body?: unknown) =>
      request(`${gateway.baseURL}${path}`, {
        method: method as 'GET',
        headers: { ...(key ? { 'x-gateway-api-key': key } : {}), 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-provider', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const inputFile = async (openai: OpenAI) => openai.files.create({ file: await toFile(Buffer.from(JSONL), 'input.jsonl'), purpose: 'batch' });
    /** The row is written when the server side of the response closes, which may be just after the client has read it all. */
    const rowsOf = async (trace: string) => {
      for (let attempt = 0; ; attempt += 1) {
        await gateway.gateway.requestLog.flush();
        const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
        if (rows.length > 0 || attempt === 100) return rows;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };

    before(async () => {
      [upstream, azure] = await Promise.all([startFilesBatchesUpstream(), startFilesBatchesUpstream({ azure: true })]);
      gateway = await startBackendGateway(backend);
      const call = adminClient(gateway.baseURL);
      const workspace = await call('POST', '/admin/workspaces', gateway.adminKey, { name: `Batches ${randomUUID().slice(0, 8)}` });
      otherKey = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'other', scopes: ['completions.write'], workspace_id: workspace.body.id })).body.key;
      noScopeKey = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'reader', scopes: ['logs.view'], workspace_id: workspace.body.id })).body.key;
      const integration = await insertIntegration(gateway.gateway.database.db, cipher, { organisationId: gateway.gateway.bootstrap.organisation.id, slug: `batch-integration-${backend.name}`, key: 'sk-saved', global: true, configurations: { custom_host: upstream.baseUrl } });
      const provider = await call('POST', '/providers', gateway.adminKey, { name: 'Batches', integration_id: integration.slug, slug: 'batch-openai' });
      assert.equal(provider.status, 200, JSON.stringify(provider.body));
    });
    after(async () => {
      await gateway?.close();
      await Promise.all([upstream?.close(), azure?.close()]);
    });

    test('create, retrieve, list, cancel; the output streams back and its usage and cost are logged once', async () => {
      const openai = client(gateway.adminKey);
      const input = await inputFile(openai);
      const batch = await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { team: 'a' } });
      assert.equal(batch.object, 'batch');
      assert.equal(batch.status, 'validating');
      assert.deepEqual((await openai.batches.retrieve(batch.id)).id, batch.id);
      assert.ok((await openai.batches.list()).data.some((entry) => entry.id === batch.id));

      const early = await raw('GET', `/batches/${batch.id}/output`, gateway.adminKey);
      assert.equal(early.statusCode, 400, 'no output before the batch completes');
      assert.equal(((await early.body.json()) as { error: { code: string } }).error.code, 'batch_output_not_ready');

      upstream.complete(batch.id, [outputLine('a'), outputLine('b')]);
      const trace = randomUUID();
      const output = await raw('GET', `/batches/${batch.id}/output`, gateway.adminKey, { 'x-gateway-trace-id': trace });
      assert.equal(output.statusCode, 200);
      const lines = (await output.body.text()).trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string });
      assert.deepEqual(lines.map((line) => line.custom_id), ['a', 'b']);
      const [row] = await rowsOf(trace);
      assert.ok(row, 'the retrieval has a row');
      assert.equal(row.mode, 'batch');
      assert.equal(row.route, 'batches.output');
      assert.equal(row.model, 'gpt-4o-mini');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [2000, 1000, 3000]);
      // gpt-4o-mini at the catalog's 0.15 / 0.6 USD per million tokens
      assert.equal(Number(row.cost), 0.0009);

      // the same output read again (here as the output file's content): counted once only
      const again = randomUUID();
      const completed = await openai.batches.retrieve(batch.id);
      const content = await raw('GET', `/files/${completed.output_file_id}/content`, gateway.adminKey, { 'x-gateway-trace-id': again });
      assert.equal(content.statusCode, 200);
      await content.body.dump();
      const [second] = await rowsOf(again);
      assert.equal(second?.totalTokens, null, 'the batch\'s usage is not counted twice');
      assert.equal(second?.cost, null);

      const cancelled = await openai.batches.cancel(batch.id);
      assert.equal(cancelled.status, 'cancelling');
    });

    test('gateway_options name the saved provider; later calls need no provider header: the record names it', async () => {
      const saved = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@batch-openai' } });
      const input = await inputFile(saved);
      const bare = (method: string, path: string, body?: unknown) =>
        request(`${gateway.baseURL}${path}`, { method: method as 'GET', headers: { 'x-gateway-api-key': gateway.adminKey, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const created = await bare('POST', '/batches', { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', gateway_options: { 'x-gateway-virtual-key': 'batch-openai' } });
      assert.equal(created.statusCode, 200, await created.body.text().then((text) => text));
      const sent = upstream.requests.filter((seen) => seen.method === 'POST' && seen.url === '/v1/batches').at(-1)!;
      assert.equal(sent.headers.authorization, 'Bearer sk-saved', 'the saved provider\'s key');
      assert.ok(!('gateway_options' in (sent.json as object)), 'gateway_options never reach the provider');
      const id = [...upstream.batches.keys()].at(-1)!;
      const retrieved = await bare('GET', `/batches/${id}`);
      assert.equal(retrieved.statusCode, 200);
      assert.equal(((await retrieved.body.json()) as { id: string }).id, id);
    });

    test('scoping: another workspace gets 404s and an empty list; its own batch needs its own input file', async () => {
      const openai = client(gateway.adminKey);
      const input = await inputFile(openai);
      const batch = await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const since = upstream.requests.length;
      for (const [method, path] of [['GET', `/batches/${batch.id}`], ['POST', `/batches/${batch.id}/cancel`], ['GET', `/batches/${batch.id}/output`]] as const) {
        const answer = await raw(method, path, otherKey);
        assert.equal(answer.statusCode, 404, `${method} ${path}`);
        await answer.body.dump();
      }
      const borrowed = await raw('POST', '/batches', otherKey, {}, { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      assert.equal(borrowed.statusCode, 404, 'another workspace\'s input file');
      await borrowed.body.dump();
      assert.equal(upstream.requests.length, since, 'nothing reached the provider');
      assert.ok(!(await client(otherKey).batches.list()).data.some((entry) => entry.id === batch.id));
    });

    test('denials and bad bodies', async () => {
      for (const [method, path] of [['GET', '/batches'], ['POST', '/batches'], ['GET', '/batches/b'], ['POST', '/batches/b/cancel'], ['GET', '/batches/b/output']] as const) {
        const anonymous = await raw(method, path, undefined);
        assert.equal(anonymous.statusCode, 401, `${method} ${path}`);
        await anonymous.body.dump();
        const denied = await raw(method, path, noScopeKey, {}, method === 'POST' ? {} : undefined);
        assert.equal(denied.statusCode, 403, `${method} ${path}`);
        await denied.body.dump();
      }
      const cases: Array<[unknown, string]> = [
        [{ endpoint: '/v1/chat/completions', completion_window: '24h' }, 'input_file_id'],
        [{ input_file_id: 'file-x', endpoint: '/v1/images', completion_window: '24h' }, 'endpoint'],
        [{ input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '1h' }, 'completion_window'],
        [{ input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '24h', gateway_options: { 'x-gateway-aws-s3-bucket': 3 } }, 'gateway_options.x-gateway-aws-s3-bucket'],
        [[], 'body'],
      ];
      for (const [body, param] of cases) {
        const answer = await raw('POST', '/batches', gateway.adminKey, {}, body);
        assert.equal(answer.statusCode, 400, JSON.stringify(body));
        assert.equal(((await answer.body.json()) as { error: { param: string } }).error.param, param);
      }
    });

    test('Azure OpenAI: the endpoint without /v1 on the wire and with it in answers; immediate is refused by name', async () => {
      const openai = client(gateway.adminKey, { 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': azure.baseUrl });
      const input = await inputFile(openai);
      const batch = await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      assert.equal(batch.endpoint, '/v1/chat/completions');
      const sent = azure.requests.filter((seen) => seen.method === 'POST' && seen.url.startsWith('/openai/batches')).at(-1)!;
      assert.equal((sent.json as { endpoint: string }).endpoint, '/chat/completions');
      assert.match(sent.url, /api-version=/);
      const immediate = await raw('POST', '/batches', gateway.adminKey, { 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': azure.baseUrl }, { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: 'immediate' });
      assert.equal(immediate.statusCode, 400);
      assert.equal(((await immediate.body.json()) as { error: { param: string } }).error.param, 'completion_window');
      azure.complete(batch.id, [outputLine('z')]);
      const output = await raw('GET', `/batches/${batch.id}/output`, gateway.adminKey, { 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': azure.baseUrl });
      assert.equal(output.statusCode, 200);
      assert.equal((JSON.parse((await output.body.text()).trim()) as { custom_id: string }).custom_id, 'z');
    });
  });
}
