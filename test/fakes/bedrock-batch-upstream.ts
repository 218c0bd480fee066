/**
 * A fake S3 and Bedrock control plane on 127.0.0.1 (one host, as a custom host serves both): path-style S3
 * PutObject / GetObject, and CreateModelInvocationJob, GetModelInvocationJob, ListModelInvocationJobs,
 * StopModelInvocationJob in their documented shapes. Every request must carry a valid SigV4 signature for its
 * service (`s3` for objects, `bedrock` for jobs): the fake recomputes it with the same secret, and for S3 also
 * checks that x-amz-content-sha256 is the hash of the bytes received; a PutObject without a content-length is
 * refused 411 as S3 does. `complete(jobId)` plays Bedrock: it reads the job's input and writes its output records.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/(s3|bedrock)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

export interface BatchRecordedRequest {
  method: string;
  url: string;
  service: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeBedrockBatches {
  baseUrl: string;
  requests: BatchRecordedRequest[];
  /** object bytes by `<bucket>/<key>` */
  objects: Map<string, Buffer>;
  jobs: Map<string, Record<string, unknown>>;
  /** runs the job: each input record answered (a record whose text says "fail" fails) and the output written */
  complete(jobId: string): void;
  close(): Promise<void>;
}

function header(req: http.IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

async function checkSignature(req: http.IncomingMessage, body: Buffer, secrets: Record<string, string>, service: string): Promise<string | undefined> {
  const match = AUTHORIZATION.exec(header(req, 'authorization'));
  if (!match) return `malformed authorization header: ${header(req, 'authorization')}`;
  const [, accessKeyId = '', day, region = '', signedService, list = '', signature] = match;
  if (signedService !== service) return `signed for service ${signedService}, expected ${service}`;
  const signedHeaders = list.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) if (!signedHeaders.includes(required)) return `${required} is not signed`;
  if (!header(req, 'x-amz-date').startsWith(day ?? '-')) return 'x-amz-date does not match the credential scope';
  const secretAccessKey = secrets[accessKeyId];
  if (!secretAccessKey) return `unknown access key ${accessKeyId}`;
  const payloadHash = header(req, 'x-amz-content-sha256');
  if (payloadHash !== createHash('sha256').update(body).digest('hex')) return 'XAmzContentSHA256Mismatch';
  const url = new URL(req.url ?? '/', 'http://fake');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = header(req, name);
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const sessionToken = header(req, 'x-amz-security-token') || undefined;
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey, sessionToken }, region, service, sha256: Sha256, uriEscapePath: service !== 's3' });
  const iso = header(req, 'x-amz-date').replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  const signed = await signer.sign({ method: req.method ?? 'GET', protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, query, headers, body }, { signingDate: new Date(iso) });
  return String(signed.headers.authorization ?? '').endsWith(`Signature=${signature}`) ? undefined : 'SignatureDoesNotMatch';
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request-id' });
  res.end(JSON.stringify(body));
}

function xmlError(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

const parseUri = (uri: string) => uri.replace(/^s3:\/\//, '');

export async function startFakeBedrockBatches(secrets: Record<string, string>): Promise<FakeBedrockBatches> {
  const requests: BatchRecordedRequest[] = [];
  const objects = new Map<string, Buffer>();
  const jobs = new Map<string, Record<string, unknown>>();
  let next = 0;

  const s3 = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, path: string) => {
    const key = decodeURIComponent(path.slice(1));
    if (req.method === 'PUT') {
      if (req.headers['content-length'] === undefined) return xmlError(res, 411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
      objects.set(key, body);
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
      return res.end();
    }
    const object = objects.get(key);
    if (!object) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    res.writeHead(200, { 'content-type': 'binary/octet-stream', 'content-length': String(object.length) });
    return res.end(object);
  };

  const control = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL) => {
    if (req.method === 'POST' && url.pathname === '/model-invocation-job') {
      const input = JSON.parse(body.toString()) as Record<string, any>;
      for (const field of ['jobName', 'roleArn', 'modelId']) if (typeof input[field] !== 'string') return json(res, 400, { message: `${field} is required` });
      const inputUri = input.inputDataConfig?.s3InputDataConfig?.s3Uri;
      if (typeof inputUri !== 'string' || !objects.has(parseUri(inputUri))) return json(res, 400, { message: `input ${String(inputUri)} not found` });
      const id = `job${String(++next).padStart(9, '0')}`;
      const jobArn = `arn:aws:bedrock:us-west-2:123456789012:model-invocation-job/${id}`;
      jobs.set(id, { ...input, jobArn, status: 'Submitted', submitTime: new Date().toISOString(), lastModifiedTime: new Date().toISOString() });
      return json(res, 200, { jobArn });
    }
    if (req.method === 'GET' && url.pathname === '/model-invocation-jobs') {
      const max = Number(url.searchParams.get('maxResults') ?? '100');
      return json(res, 200, { invocationJobSummaries: [...jobs.values()].reverse().slice(0, max) });
    }
    const match = /^\/model-invocation-job\/([^/]+)(\/stop)?$/.exec(url.pathname);
    const job = match ? jobs.get(decodeURIComponent(match[1]!)) : undefined;
    if (!job) return json(res, 404, { message: 'Could not find the job' });
    if (match?.[2] && req.method === 'POST') {
      job.status = 'Stopping';
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end();
    }
    return json(res, 200, job);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const service = url.pathname.startsWith('/model-invocation-job') ? 'bedrock' : 's3';
      requests.push({ method: req.method ?? '', url: req.url ?? '', service, headers: req.headers, body });
      void checkSignature(req, body, secrets, service).then((problem) => {
        if (problem) return service === 's3' ? xmlError(res, 403, 'SignatureDoesNotMatch', problem) : json(res, 403, { message: problem });
        return service === 's3' ? s3(req, res, body, url.pathname) : control(req, res, body, url);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const complete = (jobId: string) => {
    const job = jobs.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    const inputUri = (job.inputDataConfig as any).s3InputDataConfig.s3Uri as string;
    const outputUri = (job.outputDataConfig as any).s3OutputDataConfig.s3Uri as string;
    const lines = objects.get(parseUri(inputUri))!.toString().split('\n').filter((line) => line.trim());
    const out = lines.map((line) => {
      const record = JSON.parse(line) as { recordId: string; modelInput: any };
      if (JSON.stringify(record.modelInput).includes('fail')) return { ...record, error: { errorCode: 400, errorMessage: 'Malformed input request' } };
      const modelOutput = {
        id: `msg_${record.recordId}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-sonnet-20240620',
        content: [{ type: 'text', text: `answer to ${record.recordId}` }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 100, output_tokens: 50 },
      };
      return { ...record, modelOutput };
    });
    const name = inputUri.slice(inputUri.lastIndexOf('/') + 1);
    objects.set(`${parseUri(outputUri).replace(/\/?$/, '/')}${jobId}/${name}.out`, Buffer.from(out.map((entry) => JSON.stringify(entry)).join('\n') + '\n'));
    Object.assign(job, { status: 'Completed', endTime: new Date().toISOString(), totalRecordCount: out.length, successRecordCount: out.filter((entry) => !('error' in entry)).length, errorRecordCount: out.filter((entry) => 'error' in entry).length });
  };

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    objects,
    jobs,
    complete,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
