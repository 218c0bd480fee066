/**
 * A 50 MB upload (and a 200 MB one) through a real gateway process (src/main.ts as deployed) to a fake provider that
 * drains and counts it: the gateway streams the multipart body through, so its resident memory (VmRSS in
 * /proc/<pid>/status, sampled while the upload runs) grows by a bounded amount that does not depend on the file's
 * size. A gateway that buffered the body would grow by at least the body (200 MB).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startFilesBatchesUpstream, type FilesBatchesUpstream } from '../fakes/files-batches-upstream.ts';
import { startNode, type Node } from '../helpers/gateway-process.ts';
import { testBackends } from '../helpers/databases.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

const FILE_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const BOUNDARY = 'gateway-memory-test';
/** uncollected read buffers stay below this whatever the size; a 200 MB body held whole could not */
const MAX_GROWTH_BYTES = 80 * 1024 * 1024;

let upstream: FilesBatchesUpstream;
let node: Node;
let database: { url: string | undefined; drop(): Promise<void> } | undefined;

before(async () => {
  upstream = await startFilesBatchesUpstream();
  // the real PostgreSQL when there is one: the embedded database's own work in the process would blur the measure
  database = await testBackends().at(-1)!.create();
  // One process: the pid is the server's own, not a cluster primary's. A small young generation makes V8 collect
  // sooner, so resident memory is closer to what is live.
  node = await startNode({ GATEWAY_WORKERS: '1', NODE_OPTIONS: '--max-semi-space-size=1', ...(database.url ? { DATABASE_URL: database.url } : {}) });
});
after(async () => {
  await node?.stop();
  await upstream?.close();
  await database?.drop();
});

function residentBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(line, 'VmRSS is readable');
  return Number(line[1]) * 1024;
}

/** A multipart body (purpose first, then the file) generated as it is read: the test holds none of it either. */
function multipart(fileBytes: number): { stream: Readable; length: number } {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  function* parts(): Generator<Buffer> {
    yield head;
    for (let sent = 0; sent < fileBytes; sent += CHUNK.length) yield CHUNK.subarray(0, Math.min(CHUNK.length, fileBytes - sent));
    yield tail;
  }
  return { stream: Readable.from(parts(), { objectMode: false }), length: head.length + fileBytes + tail.length };
}

async function upload(fileBytes: number): Promise<{ status: number; body: { bytes?: number; id?: string } }> {
  const body = multipart(fileBytes);
  const answer = await request(`${node.baseURL}/files`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': TEST_ADMIN_KEY,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.baseUrl,
      authorization: 'Bearer sk-provider',
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(body.length),
    },
    body: body.stream,
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as { bytes?: number; id?: string } };
}

/** Resident memory's peak growth over its level before, while one upload of this size runs. */
async function growthDuring(fileBytes: number): Promise<number> {
  const baseline = residentBytes(node.pid);
  let peak = baseline;
  // sampling is a poll by nature: /proc has no event for memory growth
  const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(node.pid))), 10);
  try {
    const answer = await upload(fileBytes);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.bytes, fileBytes, 'the provider got the whole file');
  } finally {
    clearInterval(sampler);
  }
  const seen = upstream.requests.filter((request) => request.method === 'POST').at(-1)!;
  assert.ok(seen.bytes > fileBytes, 'every byte of the multipart body reached the provider');
  return Math.max(peak, residentBytes(node.pid)) - baseline;
}

test('a 50 MB upload streams through the gateway process; its memory does not grow with the file', async (t) => {
  // warm-up: the code paths of an upload loaded and compiled before a baseline is read
  assert.equal((await upload(16 * 1024 * 1024)).status, 200);
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
  const fifty = await growthDuring(FILE_BYTES);
  const large = await growthDuring(4 * FILE_BYTES);
  t.diagnostic(`resident memory growth: ${mb(fifty)} MB during the 50 MB upload, ${mb(large)} MB during a 200 MB one`);
  // Read buffers already passed on are garbage V8 collects when the external memory they hold reaches its trigger
  // (tens of MB), whatever the upload's size; a gateway holding the body would grow by the body itself.
  for (const [size, growth] of [[FILE_BYTES, fifty], [4 * FILE_BYTES, large]] as const) {
    assert.ok(growth < MAX_GROWTH_BYTES, `the gateway's resident memory grew by ${mb(growth)} MB during a ${mb(size)} MB upload`);
  }
});
