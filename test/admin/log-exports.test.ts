/**
 * The Logs Export group over HTTP, on every back-end: the lifecycle (draft, update, start, success, download in
 * both formats through the signed URL), cancel, signatures (bad, tampered, expired), visibility and denials, and
 * a 100k-row export in both formats whose memory growth stays far below the export's size.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { and, eq, sql } from 'drizzle-orm';
import { request } from 'undici';
import { hmacSigner, sealedSigner } from '../../src/domain/logs/download-signature.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { auditLogs, logExportChunks } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import { TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

const SCOPES = ['logs.export', 'logs.list'];
const FIELDS = ['id', 'trace_id', 'created_at', 'ai_model', 'cost', 'response_status_code', 'metadata'];

/** RFC 4180 records of a small CSV text (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (char === '"') quoted = false; else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') { record.push(field); field = ''; } else if (char === '\n') { record.push(field); records.push(record); record = []; field = ''; } else field += char;
  }
  if (field || record.length) { record.push(field); records.push(record); }
  return records;
}

for (const backend of testBackends()) {
  describe(`log exports on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let A: string;
    let B: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'noScopes', { id: string; key: string }>;
    const tag = randomUUID();
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    /** the seeded rows of A, newest first */
    let seededA: NewRequestLogRow[] = [];

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const settled = (id: string) => gateway.gateway.app.logExportJobs.settled(id);

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      A = (await ok('POST', '/admin/workspaces', { name: 'Export A', slug: 'export-a' })).id;
      B = (await ok('POST', '/admin/workspaces', { name: 'Export B', slug: 'export-b' })).id;
      keys.svcA = await ok('POST', '/api-keys/workspace/service', { name: 'svc A', scopes: SCOPES, workspace_id: A });
      keys.svcB = await ok('POST', '/api-keys/workspace/service', { name: 'svc B', scopes: SCOPES, workspace_id: B });
      keys.noScopes = await ok('POST', '/api-keys/workspace/service', { name: 'none', scopes: ['logs.list'], workspace_id: A });
      const base = Date.parse('2023-02-01T00:00:00.000Z');
      const rows: NewRequestLogRow[] = Array.from({ length: 2500 }, (_, index) => ({
        id: randomUUID(), organisationId: orgId(), workspaceId: index % 5 === 4 ? B : A, createdAt: new Date(base + index), traceId: `t-${index}`,
        route: 'chat', method: 'POST', path: '/v1/chat/completions', status: index % 10 === 3 ? 500 : 200, isSuccess: index % 10 !== 3, responseTimeMs: index,
        model: 'gpt-4o', provider: 'openai', cost: '0.000250000000', metadata: { exp: tag, note: 'a "quoted", comma' },
        requestBody: JSON.stringify({ index }), responseBody: JSON.stringify({ ok: index }),
      }));
      await insertRequestLogs(db(), rows);
      seededA = rows.filter((row) => row.workspaceId === A).reverse();
    });

    after(async () => {
      await gateway?.close();
    });

    const FILTERS = { metadata: { exp: tag } };

    async function download(signedUrl: string): Promise<{ status: number; text: string; type: string }> {
      const response = await request(signedUrl);
      return { status: response.statusCode, text: await response.body.text(), type: String(response.headers['content-type']) };
    }

    test('lifecycle: draft, update, start, success, download as JSON Lines and CSV', async () => {
      const created = await ok('POST', '/logs/exports', { workspace_id: 'export-a', filters: FILTERS, requested_data: FIELDS, description: 'all of A' });
      assert.equal(created.object, 'export');
      assert.equal(created.total, seededA.length);
      const draft = await ok('GET', `/logs/exports/${created.id}`);
      assert.deepEqual([draft.status, draft.workspace_id, draft.description, draft.requested_data], ['draft', A, 'all of A', FIELDS]);

      // only the failures, and the bodies too
      const updated = await ok('PUT', `/logs/exports/${created.id}`, { filters: { ...FILTERS, status_code: '500' }, requested_data: [...FIELDS, 'request', 'response'] });
      const failures = seededA.filter((row) => row.status === 500);
      assert.equal(updated.total, failures.length);
      assert.equal((await call('GET', `/logs/exports/${created.id}/download`, gateway.adminKey)).status, 409, 'nothing to download yet');

      const started = await ok('POST', `/logs/exports/${created.id}/start`);
      assert.equal(started.object, 'export');
      assert.match(started.message, /started/);
      await settled(created.id);
      const done = await ok('GET', `/logs/exports/${created.id}`);
      assert.deepEqual([done.status, done.exported_rows, done.total], ['success', failures.length, failures.length]);
      assert.equal((await call('PUT', `/logs/exports/${created.id}`, gateway.adminKey, { filters: FILTERS })).status, 409, 'only a draft changes');
      assert.equal((await call('POST', `/logs/exports/${created.id}/start`, gateway.adminKey)).status, 409, 'a finished export is not run again');
      assert.equal((await call('POST', `/logs/exports/${created.id}/cancel`, gateway.adminKey)).status, 409, 'a finished export is not cancelled');

      const jsonl = await ok('GET', `/logs/exports/${created.id}/download`);
      assert.match(jsonl.signed_url, /^http:\/\/127\.0\.0\.1:\d+\/downloads\/log-exports\/[0-9a-f-]{36}\?format=jsonl&expires=\d+&signature=/);
      const file = await download(jsonl.signed_url);
      assert.equal(file.status, 200, file.text);
      assert.match(file.type, /application\/x-ndjson/);
      const lines = file.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(lines.map((line) => line.id), failures.map((row) => row.id), 'every failure, newest first');
      assert.deepEqual(Object.keys(lines[0]!), [...FIELDS, 'request', 'response']);
      assert.deepEqual(lines[0]!.metadata, { exp: tag, note: 'a "quoted", comma' });
      assert.equal(lines[0]!.cost, 0.025, 'USD 0.00025 is 0.025 cents');
      assert.deepEqual((lines[0]!.request as { body: unknown }).body, JSON.parse(failures[0]!.requestBody!));

      const csv = await ok('GET', `/logs/exports/${created.id}/download?format=csv`);
      const csvFile = await download(csv.signed_url);
      assert.equal(csvFile.status, 200, csvFile.text);
      assert.match(csvFile.type, /text\/csv/);
      const records = parseCsv(csvFile.text);
      assert.deepEqual(records[0], [...FIELDS, 'request', 'response']);
      assert.equal(records.length, failures.length + 1);
      const first = records[1]!;
      assert.equal(first[0], failures[0]!.id);
      assert.deepEqual(JSON.parse(first[FIELDS.indexOf('metadata')]!), { exp: tag, note: 'a "quoted", comma' });
      assert.equal(first[FIELDS.indexOf('response_status_code')], '500');

      const listed = await ok('GET', '/logs/exports');
      assert.ok(listed.data.some((item: { id: string }) => item.id === created.id));
      const audited = await db().select().from(auditLogs).where(and(eq(auditLogs.resourceId, created.id), eq(auditLogs.outcome, 'success')));
      assert.deepEqual(audited.map((row) => row.action).sort(), ['log_exports.create', 'log_exports.start', 'log_exports.update']);
    });

    test('signed URLs: a bad, tampered or expired signature is a 403; a malformed parameter a 400', async () => {
      const created = await ok('POST', '/logs/exports', { filters: { ...FILTERS, trace_id: 't-0,t-1' }, requested_data: ['id'] });
      await ok('POST', `/logs/exports/${created.id}/start`);
      await settled(created.id);
      const { signed_url: signedUrl } = await ok('GET', `/logs/exports/${created.id}/download`);
      assert.equal((await download(signedUrl)).status, 200);
      const url = new URL(signedUrl);
      const variant = (changes: Record<string, string>) => {
        const copy = new URL(url);
        for (const [name, value] of Object.entries(changes)) copy.searchParams.set(name, value);
        return copy.toString();
      };
      const signature = url.searchParams.get('signature')!;
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('A') ? 'B' : 'A'}${signature.slice(-1)}`;
      for (const [label, target] of [
        ['bad signature', variant({ signature: flipped })],
        ['another format', variant({ format: 'csv' })],
        ['a later expiry', variant({ expires: String(Number(url.searchParams.get('expires')) + 60) })],
        ['another export', signedUrl.replace(created.id, randomUUID())],
      ] as const) {
        const answer = await download(target);
        assert.equal(answer.status, 403, `${label}: ${answer.text}`);
        assert.equal(JSON.parse(answer.text).error.code, 'invalid_signature', label);
      }
      // a correct signature over a past expiry
      const signer = sealedSigner(createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex')));
      const past = Math.floor(Date.now() / 1000) - 1;
      const expired = await download(variant({ expires: String(past), signature: signer.sign(created.id, 'jsonl', past) }));
      assert.equal(expired.status, 403, expired.text);
      assert.equal(JSON.parse(expired.text).error.code, 'expired_signature');
      // no other spelling of a signature passes: every single-character change is refused (both signers)
      const key = Buffer.alloc(32, 7);
      for (const each of [signer, hmacSigner(key)]) {
        const good = each.sign(created.id, 'jsonl', past + 1000);
        assert.ok(each.verify(created.id, 'jsonl', past + 1000, good));
        for (let at = 0; at < good.length; at++) {
          for (const replacement of ['A', 'B', '_', '-']) {
            if (good[at] === replacement) continue;
            const mutated = `${good.slice(0, at)}${replacement}${good.slice(at + 1)}`;
            assert.equal(each.verify(created.id, 'jsonl', past + 1000, mutated), false, `${mutated} at ${at}`);
          }
        }
      }
      for (const [changes, param] of [[{ expires: 'soon' }, 'expires'], [{ format: 'xml' }, 'format']] as const) {
        const answer = await download(variant(changes));
        assert.equal(answer.status, 400, answer.text);
        assert.equal(JSON.parse(answer.text).error.param, param);
      }
      const noSignature = new URL(url);
      noSignature.searchParams.delete('signature');
      assert.equal((await download(noSignature.toString())).status, 400);
      assert.equal((await download(`${url.origin}/downloads/log-exports/not-a-uuid${url.search}`)).status, 400);
    });

    test('visibility: a workspace key sees and exports its own workspace only', async () => {
      const ofA = await ok('POST', '/logs/exports', { filters: FILTERS, requested_data: ['id'] }, keys.svcA.key);
      assert.equal(ofA.total, seededA.length, 'a workspace key\'s export holds its workspace\'s rows');
      const ofB = await ok('POST', '/logs/exports', { filters: FILTERS, requested_data: [] }, keys.svcB.key);
      assert.equal(ofB.total, 500);
      assert.equal((await ok('GET', `/logs/exports/${ofA.id}`, undefined, keys.svcA.key)).workspace_id, A);
      for (const [method, path] of [['GET', ''], ['PUT', ''], ['POST', '/start'], ['POST', '/cancel'], ['GET', '/download']] as const) {
        const answer = await call(method, `/logs/exports/${ofA.id}${path}`, keys.svcB.key, method === 'PUT' ? { filters: {} } : undefined);
        assert.equal(answer.status, 404, `${method} ${path}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.error.message, new RegExp(ofA.id));
      }
      const namedB = await call('POST', '/logs/exports', keys.svcA.key, { workspace_id: B, filters: {}, requested_data: [] });
      assert.equal(namedB.status, 404);
      const listedB = await ok('GET', '/logs/exports', undefined, keys.svcB.key);
      assert.ok(listedB.data.every((item: { workspace_id: string }) => item.workspace_id === B));
      assert.ok(listedB.data.some((item: { id: string }) => item.id === ofB.id));
      const all = await ok('GET', '/logs/exports?page_size=100');
      assert.ok([ofA.id, ofB.id].every((id) => all.data.some((item: { id: string }) => item.id === id)), 'an admin key sees both');
      // an admin's export of every workspace counts both
      assert.equal((await ok('POST', '/logs/exports', { filters: FILTERS, requested_data: [] })).total, 2500);
      // a draft is cancelled (stopped) and can be started again from there
      await ok('POST', `/logs/exports/${ofB.id}/cancel`, undefined, keys.svcB.key);
      assert.equal((await ok('GET', `/logs/exports/${ofB.id}`, undefined, keys.svcB.key)).status, 'stopped');
    });

    test('denials: without logs.export every operation is a 403 naming it, audited', async () => {
      const target = await ok('POST', '/logs/exports', { workspace_id: A, filters: {}, requested_data: [] });
      const operations: Array<[string, string, string, unknown?]> = [
        ['POST', '/logs/exports', 'log_exports.create', { filters: {}, requested_data: [] }],
        ['GET', '/logs/exports', 'log_exports.list'],
        ['GET', `/logs/exports/${target.id}`, 'log_exports.read'],
        ['PUT', `/logs/exports/${target.id}`, 'log_exports.update', { filters: {} }],
        ['POST', `/logs/exports/${target.id}/start`, 'log_exports.start'],
        ['POST', `/logs/exports/${target.id}/cancel`, 'log_exports.cancel'],
        ['GET', `/logs/exports/${target.id}/download`, 'log_exports.download'],
      ];
      for (const [method, path, action, body] of operations) {
        const count = async () => (await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.apiKeyId, keys.noScopes.id), eq(auditLogs.outcome, 'denied')))).length;
        const before = await count();
        const answer = await call(method, path, keys.noScopes.key, body);
        assert.equal(answer.status, 403, `${method} ${path}`);
        assert.equal(answer.body.error.code, 'missing_scope');
        assert.match(answer.body.error.message, /logs\.export/);
        assert.equal(await count(), before + 1, `${action} denial audited`);
        assert.equal((await call(method, path, undefined, body)).status, 401);
      }
      assert.equal((await ok('GET', `/logs/exports/${target.id}`)).status, 'draft', 'nothing changed');
    });

    test('each bad body or id is a 400 naming the field', async () => {
      const bad: Array<[string, string, unknown, string]> = [
        ['POST', '/logs/exports', { requested_data: [] }, 'filters'],
        ['POST', '/logs/exports', { filters: {}, requested_data: ['everything'] }, 'requested_data[0]'],
        ['POST', '/logs/exports', { filters: { status_code: 'abc' }, requested_data: [] }, 'filters.status_code'],
        ['POST', '/logs/exports', { filters: { time_of_generation_min: 'yesterday!' }, requested_data: [] }, 'filters.time_of_generation_min'],
        ['POST', '/logs/exports', { filters: { ai_org_model: 'openai' }, requested_data: [] }, 'filters.ai_org_model'],
        ['POST', '/logs/exports', { filters: { cost_min: 5, cost_max: 1 }, requested_data: [] }, 'filters.cost_max'],
        ['POST', '/logs/exports', { filters: { colour: 'red' }, requested_data: [] }, 'filters.colour'],
        ['POST', '/logs/exports', { filters: {}, requested_data: [], workspace_id: 'no such!' }, 'workspace_id'],
        ['GET', '/logs/exports/not-a-uuid', undefined, 'exportId'],
        ['POST', `/logs/exports/${randomUUID()}/start`, { extra: true }, 'extra'],
        ['GET', `/logs/exports/${randomUUID()}/download?format=xml`, undefined, 'format'],
      ];
      for (const [method, path, body, param] of bad) {
        const answer = await call(method, path, gateway.adminKey, body);
        assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.param, param, `${method} ${path} ${JSON.stringify(body)}`);
      }
      const unknown = randomUUID();
      const missing = await call('GET', `/logs/exports/${unknown}`, gateway.adminKey);
      assert.equal(missing.status, 404);
      assert.match(missing.body.error.message, new RegExp(unknown));
    });

    // once per run, on the real PostgreSQL when there is one (the embedded database's export path is the same code)
    const bigExport = backend.name === (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
    test('100k rows, cancelled mid-way, then exported in both formats with bounded memory', { timeout: 600_000, skip: bigExport ? false : 'run on the real PostgreSQL' }, async (t) => {
      const memTag = randomUUID();
      const padding = 'p'.repeat(300);
      await db().execute(sql`
        insert into request_logs (id, organisation_id, workspace_id, created_at, trace_id, route, method, path, status, is_success, response_time_ms, provider, model, metadata, cost)
        select gen_random_uuid(), ${orgId()}::uuid, ${A}::uuid, ${'2024-05-01T00:00:00Z'}::timestamptz + g * interval '1 millisecond', 'mem-' || g, 'chat', 'POST',
          '/v1/chat/completions', 200, true, g % 1000, 'openai', 'gpt-4o', jsonb_build_object('mem', ${memTag}::text, 'padding', ${padding}::text), 0.000123
        from generate_series(1, 100000) g`);
      const created = await ok('POST', '/logs/exports', { workspace_id: A, filters: { metadata: { mem: memTag } }, requested_data: ['id', 'trace_id', 'created_at', 'ai_model', 'cost', 'response_time', 'metadata'] });
      assert.equal(created.total, 100_000);

      // cancelled right after it starts: a hundred pages take far longer than one request
      await ok('POST', `/logs/exports/${created.id}/start`);
      await ok('POST', `/logs/exports/${created.id}/cancel`);
      await settled(created.id);
      const stopped = await ok('GET', `/logs/exports/${created.id}`);
      assert.equal(stopped.status, 'stopped');
      assert.ok(stopped.exported_rows < 100_000, `stopped after ${stopped.exported_rows} rows`);
      assert.equal((await call('GET', `/logs/exports/${created.id}/download`, gateway.adminKey)).status, 409);

      // started again from a stopped state: from scratch, to the end, sampled as it runs
      gc();
      const baseline = process.memoryUsage();
      let peakHeap = baseline.heapUsed;
      let peakBuffers = baseline.arrayBuffers;
      // live memory, sampled as the export runs and downloads: garbage collected first, so the peak is what was held
      // (on the heap, and in Buffers outside it)
      const sampler = setInterval(() => {
        // twice: V8 frees a collection's dead ArrayBuffers on a background thread, and the next collection first
        // finishes that (on a busy machine 12-27 MB of dead ones were still counted after a single collection, ~1 MB after two)
        gc();
        gc();
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed);
        peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
        // every 500 ms: two full collections of this process (the gateway's heap included) every 100 ms made the
        // export itself take ~2 minutes of this test's time; what an export holds is steady, not a spike
      }, 500);
      try {
        await ok('POST', `/logs/exports/${created.id}/start`);
        await settled(created.id);
        const done = await ok('GET', `/logs/exports/${created.id}`);
        assert.deepEqual([done.status, done.exported_rows], ['success', 100_000]);
        const [chunks] = await db().select({ count: sql<number>`count(*)::int`, max: sql<number>`max(rows)::int` }).from(logExportChunks).where(eq(logExportChunks.exportId, created.id));
        assert.deepEqual(chunks, { count: 100, max: 1000 }, 'chunks of at most 1000 rows, the earlier run\'s dropped');

        let exportBytes = 0;
        for (const format of ['jsonl', 'csv'] as const) {
          const { signed_url: signedUrl } = await ok('GET', `/logs/exports/${created.id}/download?format=${format}`);
          // node's own client: undici's, in this same process, held up to 33 MB of the body as Buffers ahead of this
          // loop (measured), where node's holds ~2 MB; the bounds below are the gateway's
          const response = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(signedUrl, resolve).on('error', reject));
          assert.equal(response.statusCode, 200);
          // read as it arrives, keeping nothing but counts
          let bytes = 0;
          let newlines = 0;
          let head = '';
          for await (const chunk of response) {
            const buffer = chunk as Buffer;
            bytes += buffer.length;
            for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) newlines += 1;
            if (head.length < 2000) head += buffer.toString('utf8', 0, Math.min(buffer.length, 2000));
          }
          assert.equal(newlines, format === 'jsonl' ? 100_000 : 100_001, `${format}: one line a row (and the CSV's header)`);
          if (format === 'jsonl') {
            exportBytes = bytes;
            assert.equal(JSON.parse(head.slice(0, head.indexOf('\n'))).trace_id, 'mem-100000', 'newest first');
          } else {
            assert.equal(head.slice(0, head.indexOf('\n')), 'id,trace_id,created_at,ai_model,cost,response_time,metadata');
          }
        }
        assert.ok(exportBytes > 40_000_000, `the export is ${exportBytes} bytes`);
        gc();
        const end = process.memoryUsage();
        const retained = end.heapUsed - baseline.heapUsed;
        const peak = peakHeap - baseline.heapUsed;
        const buffers = peakBuffers - baseline.arrayBuffers;
        t.diagnostic(`export ${exportBytes} bytes; live heap peak +${peak}, retained +${retained}, live Buffers peak +${buffers}, rss ${end.rss - baseline.rss}`);
        assert.ok(retained < exportBytes / 20, `heap retained ${retained} bytes after an export of ${exportBytes}`);
        assert.ok(peak < exportBytes / 5, `live heap peaked ${peak} bytes above the start during an export of ${exportBytes}`);
        assert.ok(buffers < exportBytes / 5, `live Buffers peaked ${buffers} bytes above the start during an export of ${exportBytes}`);
        // the embedded database lives in this process (WASM memory): its resident size grows with what it stores
        if (backend.name === 'postgres') {
          const rss = end.rss - baseline.rss;
          // RSS is noisy (freed pages are not always returned at once: -17 to +27 MB across runs of this test), so
          // the bounds above, of what is live, are the precise ones; this one catches memory held outside both (an
          // export held whole would add at least its own size: 53 MB of JSONL, then the CSV)
          assert.ok(rss < exportBytes, `resident memory grew ${rss} bytes during an export of ${exportBytes}`);
        }
      } finally {
        clearInterval(sampler);
      }
    });
  });
}
