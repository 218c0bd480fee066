/**
 * A fake provider for files, batches and fine-tuning on 127.0.0.1, speaking OpenAI's wire format
 * (https://platform.openai.com/docs/api-reference/files, /batch, /fine-tuning) or Azure OpenAI's
 * (`/openai/files?api-version=...` with an `api-key` header; batch endpoints without `/v1`; file status `pending`;
 * https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/batch).
 * Uploads are multipart: a small one is kept (its content can be downloaded, e.g. a batch input), a large one is
 * drained and only counted, so the fake never holds it either. The test finishes a batch with `complete()`, which
 * writes its output file (JSONL) the way the provider would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** the body's size in bytes (an upload's too, counted as it was drained) */
  bytes: number;
  /** a JSON body, parsed; undefined otherwise */
  json: unknown;
}

type Json = Record<string, unknown>;

export interface FilesBatchesUpstream {
  /** x-gateway-custom-host: http://127.0.0.1:<port>/v1 (OpenAI) or http://127.0.0.1:<port>/openai (Azure) */
  baseUrl: string;
  requests: SeenRequest[];
  files: Map<string, Json & { content?: Buffer }>;
  batches: Map<string, Json>;
  jobs: Map<string, Json>;
  /** finishes a batch: its output file holds these lines (JSONL) */
  complete(batchId: string, lines: readonly Json[]): void;
  close(): Promise<void>;
}

const KEEP_BYTES = 4 * 1024 * 1024;
const CREATED = 1_700_000_000;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function error(res: http.ServerResponse, status: number, message: string, param: string | null = null): void {
  send(res, status, { error: { message, type: 'invalid_request_error', param, code: null } });
}

function list(data: Json[]): Json {
  return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** The multipart parts of a kept body: each part's headers and bytes. */
function parts(body: Buffer, boundary: string): Array<{ name: string; filename: string | undefined; data: Buffer }> {
  const delimiter = Buffer.from(`--${boundary}`);
  const found: Array<{ name: string; filename: string | undefined; data: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headerEnd).toString();
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    found.push({ name, filename, data: part.subarray(headerEnd + 4) });
    at = next;
  }
  return found;
}

/** A large upload's file size, from its first bytes: the file is the last part, the closing delimiter after it. */
function drainedFile(first: Buffer, total: number, boundary: string): { bytes: number; filename: string | undefined; purpose: string | undefined } {
  const head = first.toString('latin1');
  const purpose = /name="purpose"\r\n\r\n([^\r]*)\r\n/.exec(head)?.[1];
  const fileHeader = /name="file"; filename="([^"]*)"[^]*?\r\n\r\n/.exec(head);
  const fileStart = fileHeader ? fileHeader.index + fileHeader[0].length : 0;
  const trailer = Buffer.byteLength(`\r\n--${boundary}--\r\n`);
  return { bytes: total - fileStart - trailer, filename: fileHeader?.[1], purpose };
}

export async function startFilesBatchesUpstream(options: { azure?: boolean } = {}): Promise<FilesBatchesUpstream> {
  const azure = options.azure === true;
  const prefix = azure ? '/openai' : '/v1';
  const requests: SeenRequest[] = [];
  const files = new Map<string, Json & { content?: Buffer }>();
  const batches = new Map<string, Json>();
  const jobs = new Map<string, Json>();
  let counter = 0;
  const nextId = (kind: string) => `${kind}${(counter += 1).toString().padStart(6, '0')}`;

  const addFile = (purpose: string, filename: string, bytes: number, content: Buffer | undefined): Json => {
    const file = { id: nextId('file-'), object: 'file', bytes, created_at: CREATED, filename, purpose, status: azure ? 'pending' : 'processed' };
    files.set(file.id, { ...file, ...(content ? { content } : {}) });
    return file;
  };
  const publicFile = (file: Json): Json => {
    const { content: _content, ...rest } = file;
    return rest;
  };

  function handleUpload(req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest): void {
    const boundary = /boundary=([^;]+)/.exec(req.headers['content-type'] ?? '')?.[1]?.replace(/^"|"$/g, '');
    if (!boundary) return error(res, 400, 'multipart body expected', 'file');
    const kept: Buffer[] = [];
    let first = Buffer.alloc(0);
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      if (first.length < 64 * 1024) first = Buffer.concat([first, chunk.subarray(0, 64 * 1024 - first.length)]);
      total += chunk.length;
      // past the cap nothing is kept: a large upload is drained and counted only
      if (total <= KEEP_BYTES) kept.push(chunk);
      else kept.length = 0;
    });
    req.on('end', () => {
      seen.bytes = total;
      if (total <= KEEP_BYTES) {
        const found = parts(Buffer.concat(kept), boundary);
        const file = found.find((part) => part.name === 'file');
        const purpose = found.find((part) => part.name === 'purpose')?.data.toString();
        if (!file || !purpose) return error(res, 400, 'file and purpose are required', file ? 'purpose' : 'file');
        return send(res, 200, addFile(purpose, file.filename ?? 'upload', file.data.length, file.data));
      }
      const drained = drainedFile(first, total, boundary);
      if (!drained.purpose) return error(res, 400, 'purpose is required (before the file)', 'purpose');
      send(res, 200, addFile(drained.purpose, drained.filename ?? 'upload', drained.bytes, undefined));
    });
  }

  function route(req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest, body: Json): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (!url.pathname.startsWith(prefix)) return error(res, 404, `no route ${url.pathname}`);
    const path = url.pathname.slice(prefix.length);
    const method = req.method ?? 'GET';
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const [root, id, action] = segments;
    if (root === 'files') {
      if (!id) return method === 'GET' ? send(res, 200, list([...files.values()].map(publicFile).filter((file) => !url.searchParams.get('purpose') || file.purpose === url.searchParams.get('purpose')))) : error(res, 405, 'method');
      const file = files.get(id);
      if (!file) return error(res, 404, `No such File object: ${id}`, 'id');
      if (action === 'content' && method === 'GET') {
        const content = file.content ?? Buffer.alloc(0);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': content.length });
        return void res.end(content);
      }
      if (method === 'DELETE') {
        files.delete(id);
        return send(res, 200, { id, object: 'file', deleted: true });
      }
      return send(res, 200, publicFile(file));
    }
    if (root === 'batches') {
      if (!id && method === 'POST') {
        const input = typeof body.input_file_id === 'string' ? files.get(body.input_file_id) : undefined;
        if (!input) return error(res, 400, 'input_file_id names no file', 'input_file_id');
        const endpoint = String(body.endpoint);
        if (azure ? endpoint.startsWith('/v1/') : !endpoint.startsWith('/v1/')) return error(res, 400, `endpoint ${endpoint} is not valid here`, 'endpoint');
        if (azure && body.completion_window !== '24h') return error(res, 400, 'completion_window must be 24h', 'completion_window');
        const batch = { id: nextId('batch_'), object: 'batch', endpoint, errors: null, input_file_id: input.id, completion_window: body.completion_window, status: 'validating', output_file_id: null, error_file_id: null, created_at: CREATED, request_counts: { total: 0, completed: 0, failed: 0 }, metadata: body.metadata ?? null };
        batches.set(batch.id, batch);
        return send(res, 200, batch);
      }
      if (!id) return send(res, 200, list([...batches.values()]));
      const batch = batches.get(id);
      if (!batch) return error(res, 404, `No batch found with id '${id}'.`, 'batch_id');
      if (action === 'cancel' && method === 'POST') batch.status = 'cancelling';
      return send(res, 200, batch);
    }
    if (root === 'fine_tuning' && id === 'jobs') {
      const jobId = segments[2];
      const jobAction = segments[3];
      if (!jobId && method === 'POST') {
        if (typeof body.training_file !== 'string' || !files.has(body.training_file)) return error(res, 400, 'training_file names no file', 'training_file');
        const job = { id: nextId('ftjob-'), object: 'fine_tuning.job', model: body.model, created_at: CREATED, finished_at: null, fine_tuned_model: null, organization_id: 'org-fake', result_files: [], status: azure ? 'pending' : 'validating_files', validation_file: body.validation_file ?? null, training_file: body.training_file, hyperparameters: { n_epochs: 'auto' }, trained_tokens: null, error: null, seed: 42 };
        jobs.set(job.id, job);
        return send(res, 200, job);
      }
      if (!jobId) return send(res, 200, { object: 'list', data: [...jobs.values()], has_more: false });
      const job = jobs.get(jobId);
      if (!job) return error(res, 404, `Fine-tuning job ${jobId} not found`, 'fine_tuning_job_id');
      if (jobAction === 'cancel' && method === 'POST') job.status = 'cancelled';
      if (jobAction === 'events') return send(res, 200, { object: 'list', data: [{ object: 'fine_tuning.job.event', id: 'ftevent-1', created_at: CREATED, level: 'info', message: `Created fine-tuning job: ${jobId}` }], has_more: false });
      if (jobAction === 'checkpoints') return send(res, 200, { object: 'list', data: [{ object: 'fine_tuning.job.checkpoint', id: 'ftckpt-1', created_at: CREATED, fine_tuned_model_checkpoint: `ft:${String(job.model)}:ckpt`, step_number: 10, metrics: {}, fine_tuning_job_id: jobId }], first_id: 'ftckpt-1', last_id: 'ftckpt-1', has_more: false });
      return send(res, 200, job);
    }
    error(res, 404, `no route ${url.pathname}`);
  }

  const server = http.createServer((req, res) => {
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes: 0, json: undefined };
    requests.push(seen);
    const url = new URL(req.url ?? '/', 'http://fake');
    if (azure && (!url.searchParams.get('api-version') || !req.headers['api-key'])) {
      req.resume();
      return error(res, 401, 'Azure wants api-version and api-key');
    }
    if (!azure && !String(req.headers.authorization ?? '').startsWith('Bearer ')) {
      req.resume();
      return error(res, 401, 'Missing bearer authentication');
    }
    if ((req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return handleUpload(req, res, seen);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      seen.bytes = Buffer.byteLength(text);
      let body: Json = {};
      if (text) {
        try {
          body = JSON.parse(text) as Json;
          seen.json = body;
        } catch {
          return error(res, 400, 'body is not JSON');
        }
      }
      route(req, res, seen, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    files,
    batches,
    jobs,
    complete(batchId, lines) {
      const batch = batches.get(batchId);
      if (!batch) throw new Error(`no batch ${batchId}`);
      const content = Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
      const output = addFile('batch_output', `${batchId}_output.jsonl`, content.length, content);
      Object.assign(batch, { status: 'completed', output_file_id: output.id, completed_at: CREATED + 60, request_counts: { total: lines.length, completed: lines.length, failed: 0 } });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
