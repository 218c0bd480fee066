/**
 * /v1/fine_tuning/jobs through the gateway, on PGlite and on the real PostgreSQL, against a fake provider speaking
 * OpenAI's and Azure's fine-tuning wire formats: create (from the workspace's own training file), list (the
 * workspace's own), retrieve, cancel, events, checkpoints; denials on every route.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { startFilesBatchesUpstream, type FilesBatchesUpstream } from '../fakes/files-batches-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const TRAINING = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}\n';

for (const backend of testBackends()) {
  describe(`fine-tuning (${backend.name})`, () => {
    let gateway: TestGateway;
    let upstream: FilesBatchesUpstream;
    let azure: FilesBatchesUpstream;
    let otherKey: string;
    let noScopeKey: string;

    const client = (key: string, headers: Record<string, string> = {}) =>
      new OpenAI({ baseURL: gateway.baseURL, apiKey: 'sk-provider', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, ...headers } });
    const raw = (method: string, path: string, key: string | undefined, body?: unknown) =>
      request(`${gateway.baseURL}${path}`, {
        method: method as 'GET',
        headers: { ...(key ? { 'x-gateway-api-key': key } : {}), 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-provider', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const trainingFile = async (openai: OpenAI) => openai.files.create({ file: await toFile(Buffer.from(TRAINING), 'train.jsonl'), purpose: 'fine-tune' });

    before(async () => {
      [upstream, azure] = await Promise.all([startFilesBatchesUpstream(), startFilesBatchesUpstream({ azure: true })]);
      gateway = await startBackendGateway(backend);
      const call = adminClient(gateway.baseURL);
      const workspace = await call('POST', '/admin/workspaces', gateway.adminKey, { name: `Tuning ${randomUUID().slice(0, 8)}` });
      otherKey = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'other', scopes: ['completions.write'], workspace_id: workspace.body.id })).body.key;
      noScopeKey = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'reader', scopes: ['logs.view'], workspace_id: workspace.body.id })).body.key;
    });
    after(async () => {
      await gateway?.close();
      await Promise.all([upstream?.close(), azure?.close()]);
    });

    test('create, retrieve, list, events, checkpoints and cancel with the official client', async () => {
      const openai = client(gateway.adminKey);
      const file = await trainingFile(openai);
      const job = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: file.id });
      assert.equal(job.object, 'fine_tuning.job');
      assert.equal(job.training_file, file.id);
      assert.equal((await openai.fineTuning.jobs.retrieve(job.id)).id, job.id);
      assert.ok((await openai.fineTuning.jobs.list()).data.some((entry) => entry.id === job.id));
      const events = await openai.fineTuning.jobs.listEvents(job.id);
      assert.match(events.data[0]!.message, new RegExp(job.id));
      const checkpoints = await openai.fineTuning.jobs.checkpoints.list(job.id);
      assert.equal(checkpoints.data[0]!.fine_tuning_job_id, job.id);
      assert.equal((await openai.fineTuning.jobs.cancel(job.id)).status, 'cancelled');
    });

    test('another workspace: 404 on the job and on the training file, nothing in its list', async () => {
      const openai = client(gateway.adminKey);
      const file = await trainingFile(openai);
      const job = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: file.id });
      const since = upstream.requests.length;
      for (const [method, path] of [['GET', `/fine_tuning/jobs/${job.id}`], ['POST', `/fine_tuning/jobs/${job.id}/cancel`], ['GET', `/fine_tuning/jobs/${job.id}/events`], ['GET', `/fine_tuning/jobs/${job.id}/checkpoints`]] as const) {
        const answer = await raw(method, path, otherKey);
        assert.equal(answer.statusCode, 404, `${method} ${path}`);
        await answer.body.dump();
      }
      const borrowed = await raw('POST', '/fine_tuning/jobs', otherKey, { model: 'gpt-4o-mini', training_file: file.id });
      assert.equal(borrowed.statusCode, 404);
      await borrowed.body.dump();
      assert.equal(upstream.requests.length, since, 'nothing reached the provider');
      assert.ok(!(await client(otherKey).fineTuning.jobs.list()).data.some((entry) => entry.id === job.id));
    });

    test('denials and bad bodies', async () => {
      const routes = [['GET', '/fine_tuning/jobs'], ['POST', '/fine_tuning/jobs'], ['GET', '/fine_tuning/jobs/j'], ['POST', '/fine_tuning/jobs/j/cancel'], ['GET', '/fine_tuning/jobs/j/events'], ['GET', '/fine_tuning/jobs/j/checkpoints']] as const;
      for (const [method, path] of routes) {
        const anonymous = await raw(method, path, undefined);
        assert.equal(anonymous.statusCode, 401, `${method} ${path}`);
        await anonymous.body.dump();
        const denied = await raw(method, path, noScopeKey, method === 'POST' ? {} : undefined);
        assert.equal(denied.statusCode, 403, `${method} ${path}`);
        await denied.body.dump();
      }
      for (const [body, param] of [[{ training_file: 'f' }, 'model'], [{ model: 'm' }, 'training_file'], [{ model: 'm', training_file: 'f', method: 'dpo' }, 'method']] as const) {
        const answer = await raw('POST', '/fine_tuning/jobs', gateway.adminKey, body);
        assert.equal(answer.statusCode, 400, JSON.stringify(body));
        assert.equal(((await answer.body.json()) as { error: { param: string } }).error.param, param);
      }
    });

    test('Azure OpenAI: /openai/fine_tuning/jobs with api-version; its pending status is OpenAI\'s queued', async () => {
      const openai = client(gateway.adminKey, { 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': azure.baseUrl });
      const file = await trainingFile(openai);
      const job = await openai.fineTuning.jobs.create({ model: 'gpt-4o-mini-2024-07-18', training_file: file.id });
      assert.equal(job.status, 'queued');
      assert.match(azure.requests.at(-1)!.url, /^\/openai\/fine_tuning\/jobs\?api-version=/);
    });
  });
}
