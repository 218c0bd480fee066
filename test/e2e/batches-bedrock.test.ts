/**
 * Bedrock batches end to end with the official openai client, on PGlite and on the real PostgreSQL, against a fake
 * S3 and Bedrock control plane that checks every SigV4 signature: the upload translated to Bedrock records and
 * stored in S3 with its length, CreateModelInvocationJob from the file's S3 URI, retrieve, list (the workspace's
 * own), cancel (stop, then read again), and the output read from S3 back as OpenAI's lines with its usage logged.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startFakeBedrockBatches, type FakeBedrockBatches } from '../fakes/bedrock-batch-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const ACCESS_KEY_ID = 'AKIDBATCHTEST';
const SECRET = 'batch-test-secret';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const ROLE = 'arn:aws:iam::123456789012:role/BedrockBatch';
const line = (id: string, text: string) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: MODEL, max_tokens: 64, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: text }] } });
const JSONL = `${line('a', 'hello')}\n\n${line('b', 'please fail')}\r\n${line('c', 'bye')}`;

for (const backend of testBackends()) {
  describe(`Bedrock batches (${backend.name})`, () => {
    let gateway: TestGateway;
    let fake: FakeBedrockBatches;
    let otherKey: string;

    const headers = (key: string, extra: Record<string, string> = {}) => ({
      'x-gateway-api-key': key,
      'x-gateway-provider': 'bedrock',
      'x-gateway-custom-host': fake.baseUrl,
      'x-gateway-aws-region': 'us-west-2',
      'x-gateway-aws-access-key-id': ACCESS_KEY_ID,
      'x-gateway-aws-secret-access-key': SECRET,
      'x-gateway-aws-s3-bucket': 'gateway-batches',
      ...extra,
    });
    const client = (key: string, extra: Record<string, string> = {}) => new OpenAI({ baseURL: gateway.baseURL, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers(key, extra) });
    const raw = (method: string, path: string, key: string, body?: unknown, extra: Record<string, string> = {}) =>
      request(`${gateway.baseURL}${path}`, { method: method as 'GET', headers: { ...headers(key, extra), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const upload = async (openai: OpenAI, text = JSONL) => openai.files.create({ file: await toFile(Buffer.from(text), 'input.jsonl'), purpose: 'batch' });
    const errorOf = async (response: Awaited<ReturnType<typeof raw>>) => ((await response.body.json()) as { error: { param: string | null; code: string | null; message: string } }).error;

    before(async () => {
      fake = await startFakeBedrockBatches({ [ACCESS_KEY_ID]: SECRET });
      gateway = await startBackendGateway(backend);
      const call = adminClient(gateway.baseURL);
      const workspace = await call('POST', '/admin/workspaces', gateway.adminKey, { name: `Bedrock batches ${randomUUID().slice(0, 8)}` });
      otherKey = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'other', scopes: ['completions.write'], workspace_id: workspace.body.id })).body.key;
    });
    after(async () => {
      await gateway?.close();
      await fake?.close();
    });

    test('upload, create, retrieve, list, cancel and the output, every call signed', async () => {
      const openai = client(gateway.adminKey);
      const file = await upload(openai);
      assert.match(file.id, /^file-[0-9a-f]{24}$/);
      assert.equal(file.purpose, 'batch');
      const put = fake.requests.find((seen) => seen.method === 'PUT')!;
      assert.equal(put.service, 's3');
      assert.equal(put.headers['content-length'], String(put.body.length), 'a sized PutObject, not a chunked one');
      assert.match(put.url, new RegExp(`^/gateway-batches/[0-9a-f-]{36}/${file.id}\\.jsonl$`));
      const records = put.body.toString().trim().split('\n').map((text) => JSON.parse(text) as { recordId: string; modelInput: Record<string, unknown> });
      assert.deepEqual(records.map((record) => record.recordId), ['a', 'b', 'c'], 'blank lines skipped, CRLF tolerated');
      assert.equal(records[0]!.modelInput.anthropic_version, 'bedrock-2023-05-31');
      assert.equal(records[0]!.modelInput.system, 'Be brief.');
      assert.equal(file.bytes, put.body.length);

      const batch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', model: MODEL, role_arn: ROLE } as unknown as OpenAI.BatchCreateParams);
      assert.equal(batch.object, 'batch');
      assert.equal(batch.status, 'validating');
      assert.equal(batch.input_file_id, file.id);
      const created = fake.requests.find((seen) => seen.method === 'POST' && seen.url === '/model-invocation-job')!;
      assert.equal(created.service, 'bedrock');
      const job = JSON.parse(created.body.toString()) as Record<string, any>;
      assert.equal(job.modelId, MODEL);
      assert.equal(job.roleArn, ROLE);
      assert.match(job.jobName, /^gateway-batch-[0-9a-f]{16}$/);
      assert.equal(job.inputDataConfig.s3InputDataConfig.s3Uri, `s3:/${put.url}`, 'the record kept the S3 URI');
      assert.match(job.outputDataConfig.s3OutputDataConfig.s3Uri, /^s3:\/\/gateway-batches\/[0-9a-f-]{36}\/output\/$/);

      assert.equal((await openai.batches.retrieve(batch.id)).status, 'validating');
      assert.ok((await openai.batches.list()).data.some((entry) => entry.id === batch.id));
      const early = await raw('GET', `/batches/${batch.id}/output`, gateway.adminKey);
      assert.equal(early.statusCode, 400);
      assert.equal((await errorOf(early)).code, 'batch_output_not_ready');

      fake.complete(batch.id);
      const done = await openai.batches.retrieve(batch.id);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
      assert.match(done.output_file_id ?? '', new RegExp(`/output/${batch.id}/${file.id}\\.jsonl\\.out$`));
      const trace = randomUUID();
      const output = await raw('GET', `/batches/${batch.id}/output`, gateway.adminKey, undefined, { 'x-gateway-trace-id': trace });
      assert.equal(output.statusCode, 200);
      const lines = (await output.body.text()).trim().split('\n').map((text) => JSON.parse(text) as { custom_id: string; response: { status_code: number; body: OpenAI.ChatCompletion } | null; error: { code: string } | null });
      assert.deepEqual(lines.map((entry) => entry.custom_id), ['a', 'b', 'c']);
      assert.equal(lines[0]!.response?.status_code, 200);
      assert.equal(lines[0]!.response?.body.object, 'chat.completion');
      assert.equal(lines[0]!.response?.body.choices[0]?.message.content, 'answer to a');
      assert.equal(lines[1]!.response, null);
      assert.equal(lines[1]!.error?.code, '400');
      const get = fake.requests.filter((seen) => seen.method === 'GET' && seen.service === 's3').at(-1)!;
      assert.ok(get.headers.authorization?.includes('/s3/aws4_request'));
      let row;
      for (let attempt = 0; attempt < 100 && !row; attempt += 1) {
        await gateway.gateway.requestLog.flush();
        [row] = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
        if (!row) await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok(row, 'the output retrieval is logged');
      assert.equal(row.mode, 'batch');
      assert.deepEqual([row.promptTokens, row.completionTokens], [200, 100], 'usage summed over the translated lines');

      const second = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', model: MODEL, role_arn: ROLE, job_name: 'my-job' } as unknown as OpenAI.BatchCreateParams);
      const cancelled = await openai.batches.cancel(second.id);
      assert.equal(cancelled.status, 'cancelling');
      assert.ok(fake.requests.some((seen) => seen.method === 'POST' && seen.url === `/model-invocation-job/${second.id}/stop`));
      assert.ok(fake.requests.every((seen) => /^AWS4-HMAC-SHA256 Credential=AKIDBATCHTEST\/\d{8}\/us-west-2\/(s3|bedrock)\/aws4_request/.test(seen.headers.authorization ?? '')));
    });

    test('bad input: each a 400 naming its field; another workspace sees nothing; fine-tuning is refused', async () => {
      const openai = client(gateway.adminKey);
      const bad = await upload(openai, `${line('a', 'x')}\n{"custom_id":"b","url":"/v1/embeddings","body":{}}\n`).catch((error: unknown) => error);
      assert.ok(bad instanceof OpenAI.APIError && bad.status === 400, String(bad));
      assert.equal((bad.error as { param: string }).param, 'input line 2.url');
      const wrongPurpose = await openai.files.create({ file: await toFile(Buffer.from(JSONL), 'x.jsonl'), purpose: 'fine-tune' }).catch((error: unknown) => error);
      assert.ok(wrongPurpose instanceof OpenAI.APIError && wrongPurpose.status === 400 && (wrongPurpose.error as { param: string }).param === 'purpose');
      const noBucket = await client(gateway.adminKey, { 'x-gateway-aws-s3-bucket': '' }).files.create({ file: await toFile(Buffer.from(JSONL), 'x.jsonl'), purpose: 'batch' }).catch((error: unknown) => error);
      assert.ok(noBucket instanceof OpenAI.APIError && noBucket.status === 400, String(noBucket));

      const file = await upload(openai);
      const base = { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, model: MODEL }, 'role_arn'],
        [{ ...base, role_arn: ROLE }, 'model'],
        [{ ...base, model: MODEL, role_arn: 'not-an-arn' }, 'role_arn'],
        [{ ...base, model: MODEL, role_arn: ROLE, endpoint: '/v1/embeddings' }, 'endpoint'],
        [{ ...base, model: MODEL, role_arn: ROLE, output_data_config: 'https://x' }, 'output_data_config'],
      ];
      for (const [body, param] of cases) {
        const response = await raw('POST', '/batches', gateway.adminKey, body);
        assert.equal(response.statusCode, 400, param);
        assert.equal((await errorOf(response)).param, param);
      }
      const viaOptions = await raw('POST', '/batches', gateway.adminKey, { ...base, role_arn: ROLE, gateway_options: { 'x-gateway-provider-model': MODEL, 'x-gateway-aws-s3-bucket': 'other-bucket' } });
      assert.equal(viaOptions.statusCode, 200);
      const viaJob = JSON.parse(fake.requests.filter((seen) => seen.url === '/model-invocation-job').at(-1)!.body.toString()) as Record<string, any>;
      assert.equal(viaJob.modelId, MODEL);
      assert.match(viaJob.outputDataConfig.s3OutputDataConfig.s3Uri, /^s3:\/\/other-bucket\//);
      const { id } = (await viaOptions.body.json()) as { id: string };

      const other = client(otherKey);
      await assert.rejects(other.batches.retrieve(id), (error: unknown) => error instanceof OpenAI.NotFoundError);
      assert.equal((await other.batches.list()).data.length, 0);
      const stranger = await raw('POST', '/batches', otherKey, { ...base, model: MODEL, role_arn: ROLE });
      assert.equal(stranger.statusCode, 404, 'another workspace\'s file');

      const tuning = await raw('POST', '/fine_tuning/jobs', gateway.adminKey, { model: MODEL, training_file: file.id });
      assert.equal(tuning.statusCode, 400);
      assert.match((await errorOf(tuning)).message, /fine_tuning\.create is not available on Bedrock/);
      const listing = await raw('GET', '/files', gateway.adminKey);
      assert.equal(listing.statusCode, 400);
    });

    test('a bad signature at S3 comes back in the gateway\'s error shape', async () => {
      const wrong = client(gateway.adminKey, { 'x-gateway-aws-secret-access-key': 'wrong-secret' });
      const error = await upload(wrong).catch((caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.APIError && error.status === 403, String(error));
      assert.match(error.message, /SignatureDoesNotMatch/);
    });
  });
}
