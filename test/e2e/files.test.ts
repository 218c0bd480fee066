/**
 * /v1/files through the gateway, on PGlite and on the real PostgreSQL: the official openai client uploads
 * (multipart, streamed to a fake provider that speaks OpenAI's or Azure's wire format), lists, retrieves, downloads
 * and deletes; every route is scoped to the caller's workspace (another workspace's file is a 404, a list shows
 * only the workspace's own) and needs completions.write.
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

const JSONL = '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}}\n';

for (const backend of testBackends()) {
  describe(`files (${backend.name})`, () => {
    let gateway: TestGateway;
    let upstream: FilesBatchesUpstream;
    let azure: FilesBatchesUpstream;
    let otherKey: string;
    let noScopeKey: string;

    const client = (key: string, headers: Record<string, string> = {}) =>
      new OpenAI({
        baseURL: gateway.baseURL,
        apiKey: 'sk-provider',
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, ...headers },
      });
    const raw = (method: string, path: string, key: string | undefined, headers: Record<string, string> = {}, body?: string) =>
      request(`${gateway.baseURL}${path}`, {
        method: method as 'GET',
        headers: { ...(key ? { 'x-gateway-api-key': key } : {}), 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-provider', ...headers },
        ...(body !== undefined ? { body } : {}),
      });

    before(async () => {
      [upstream, azure] = await Promise.all([startFilesBatchesUpstream(), startFilesBatchesUpstream({ azure: true })]);
      gateway = await startBackendGateway(backend);
      const call = adminClient(gateway.baseURL);
      const workspace = await call('POST', '/admin/workspaces', gateway.adminKey, { name: `Files ${randomUUID().slice(0, 8)}` });
      assert.equal(workspace.status, 200, JSON.stringify(workspace.body));
      const other = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'other', scopes: ['completions.write'], workspace_id: workspace.body.id });
      assert.equal(other.status, 200, JSON.stringify(other.body));
      otherKey = other.body.key;
      const readOnly = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'reader', scopes: ['logs.view'], workspace_id: workspace.body.id });
      noScopeKey = readOnly.body.key;
    });
    after(async () => {
      await gateway?.close();
      await Promise.all([upstream?.close(), azure?.close()]);
    });

    test('upload, retrieve, list, content and delete with the official client; the provider gets the bytes as sent', async () => {
      const openai = client(gateway.adminKey);
      const created = await openai.files.create({ file: await toFile(Buffer.from(JSONL), 'input.jsonl'), purpose: 'batch' });
      assert.equal(created.object, 'file');
      assert.equal(created.purpose, 'batch');
      assert.equal(created.bytes, Buffer.byteLength(JSONL));
      assert.equal(upstream.files.get(created.id)?.content?.toString(), JSONL, 'the provider got the file untouched');
      const upload = upstream.requests.find((seen) => seen.method === 'POST' && seen.url === '/v1/files')!;
      assert.equal(upload.headers.authorization, 'Bearer sk-provider');
      assert.ok(!('x-gateway-api-key' in upload.headers), 'the gateway key never reaches the provider');

      const retrieved = await openai.files.retrieve(created.id);
      assert.equal(retrieved.id, created.id);
      assert.equal(retrieved.filename, 'input.jsonl');
      const listed = await openai.files.list();
      assert.ok(listed.data.some((file) => file.id === created.id));
      const content = await openai.files.content(created.id);
      assert.equal(await content.text(), JSONL);

      const deleted = await openai.files.delete(created.id);
      assert.deepEqual({ id: deleted.id, deleted: deleted.deleted }, { id: created.id, deleted: true });
      const gone = await openai.files.retrieve(created.id).then(() => undefined, (error: unknown) => error);
      assert.ok(gone instanceof OpenAI.NotFoundError, 'a deleted file is gone from the workspace');
    });

    test('another workspace neither sees nor reaches the file; its own list shows only its own', async () => {
      const mine = await client(gateway.adminKey).files.create({ file: await toFile(Buffer.from(JSONL), 'mine.jsonl'), purpose: 'batch' });
      const theirs = await client(otherKey).files.create({ file: await toFile(Buffer.from(JSONL), 'theirs.jsonl'), purpose: 'batch' });
      const since = upstream.requests.length;
      for (const [method, path] of [['GET', `/files/${mine.id}`], ['GET', `/files/${mine.id}/content`], ['DELETE', `/files/${mine.id}`]] as const) {
        const answer = await raw(method, path, otherKey);
        assert.equal(answer.statusCode, 404, `${method} ${path}`);
        const body = (await answer.body.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'file_not_found');
      }
      assert.equal(upstream.requests.length, since, 'nothing reached the provider');
      const theirList = await client(otherKey).files.list();
      assert.deepEqual(theirList.data.map((file) => file.id), [theirs.id], 'the provider lists both; the workspace sees its own');
      const myList = await client(gateway.adminKey).files.list();
      assert.ok(myList.data.some((file) => file.id === mine.id) && !myList.data.some((file) => file.id === theirs.id));
    });

    test('denials: no key is a 401, a key without completions.write a 403 on every route; bad bodies are 400s naming the field', async () => {
      const paths: Array<[string, string]> = [['GET', '/files'], ['POST', '/files'], ['GET', '/files/file-x'], ['DELETE', '/files/file-x'], ['GET', '/files/file-x/content']];
      for (const [method, path] of paths) {
        const anonymous = await raw(method, path, undefined);
        assert.equal(anonymous.statusCode, 401, `${method} ${path}`);
        await anonymous.body.dump();
        const denied = await raw(method, path, noScopeKey, { 'content-type': 'multipart/form-data; boundary=x' }, method === 'POST' ? '--x--\r\n' : undefined);
        assert.equal(denied.statusCode, 403, `${method} ${path}`);
        assert.match(((await denied.body.json()) as { error: { message: string } }).error.message, /completions\.write/);
      }
      const json = await raw('POST', '/files', gateway.adminKey, { 'content-type': 'application/json' }, '{"purpose":"batch"}');
      assert.equal(json.statusCode, 400);
      assert.equal(((await json.body.json()) as { error: { param: string } }).error.param, 'file');
      const noProvider = await request(`${gateway.baseURL}/files`, { headers: { 'x-gateway-api-key': gateway.adminKey } });
      assert.equal(noProvider.statusCode, 400);
      assert.equal(((await noProvider.body.json()) as { error: { param: string } }).error.param, 'x-gateway-provider');
    });

    test('a provider error keeps its status and body', async () => {
      const answer = await raw('POST', '/files', gateway.adminKey, { 'content-type': 'multipart/form-data; boundary=b' }, '--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b--\r\n');
      assert.equal(answer.statusCode, 400);
      assert.equal(((await answer.body.json()) as { error: { param: string } }).error.param, 'file');
    });

    test('Azure OpenAI: /openai/files with api-version and api-key; its statuses in OpenAI\'s enum', async () => {
      const openai = client(gateway.adminKey, { 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': azure.baseUrl });
      const created = await openai.files.create({ file: await toFile(Buffer.from(JSONL), 'azure.jsonl'), purpose: 'batch' });
      assert.equal(created.status, 'uploaded', 'Azure\'s pending is OpenAI\'s uploaded');
      const upload = azure.requests.find((seen) => seen.method === 'POST')!;
      assert.match(upload.url, /^\/openai\/files\?api-version=/);
      assert.equal(upload.headers['api-key'], 'sk-provider');
      const retrieved = await openai.files.retrieve(created.id);
      assert.equal(retrieved.id, created.id);
      // the record names the provider: asking another provider for it finds nothing
      const elsewhere = await client(gateway.adminKey).files.retrieve(created.id).then(() => undefined, (error: unknown) => error);
      assert.ok(elsewhere instanceof OpenAI.NotFoundError);
    });
  });
}
