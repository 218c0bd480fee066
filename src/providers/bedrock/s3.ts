/**
 * The S3 side of Bedrock batches: batch inputs are stored as objects (PutObject), outputs read back (GetObject).
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
 *
 * An upload is translated line by line as it arrives and written to a temporary file, then sent with its length and
 * its SHA-256 as the signed payload hash. S3 refuses a PutObject of unknown length unless the body is sent as
 * SigV4-signed aws-chunked frames, and a multipart upload needs several calls and an abort on failure: a file on
 * disk (at most the upload cap, removed once sent) keeps memory flat with one plain, fully signed PUT.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { invalidParam } from '../../core/errors.ts';
import type { ProviderTarget, ResourceCall, StoredUpload, UpstreamRequest } from '../contract.ts';
import { S3_SIGNING_HEADER } from './auth.ts';
import { regionOf } from './endpoints.ts';
import { boundaryOf, createMultipartReader } from './multipart.ts';

export const BUCKET_HEADER = 'x-gateway-aws-s3-bucket';
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export interface S3Location {
  bucket: string;
  key: string;
}

/** The bucket a call names (gateway_options, then the x-gateway-aws-s3-bucket header or the integration's). */
export function bucketOf(target: ProviderTarget, named: string | undefined, param = BUCKET_HEADER): string {
  const bucket = named ?? target.cloud['aws-s3-bucket'];
  if (!bucket) throw invalidParam(param, `Bedrock batches keep their files in S3: send ${BUCKET_HEADER} (or set aws_s3_bucket on the integration).`, 'missing_header');
  if (!BUCKET_NAME.test(bucket)) throw invalidParam(param, `"${bucket.slice(0, 100)}" is not an S3 bucket name.`);
  return bucket;
}

export function s3Uri(location: S3Location): string {
  return `s3://${location.bucket}/${location.key}`;
}

export function parseS3Uri(uri: string, param: string): S3Location {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (!match || !BUCKET_NAME.test(match[1]!)) throw invalidParam(param, `${param} must be an s3://<bucket>/<key> URI.`);
  return { bucket: match[1]!, key: match[2]! };
}

/** Path style on a custom host and for dotted buckets (whose virtual host no certificate covers); else virtual host. */
function objectUrl(target: ProviderTarget, location: S3Location): string {
  const key = location.key.split('/').map(encodeURIComponent).join('/');
  if (target.customHost) return `${target.baseUrl}/${location.bucket}/${key}`;
  const region = regionOf(target.cloud);
  return location.bucket.includes('.') ? `https://s3.${region}.amazonaws.com/${location.bucket}/${key}` : `https://${location.bucket}.s3.${region}.amazonaws.com/${key}`;
}

function s3Request(method: string, url: string, headers: Record<string, string>): UpstreamRequest {
  return { method, url, headers: { ...headers, [S3_SIGNING_HEADER]: '1' }, body: undefined, warnings: [] };
}

/** S3 answers errors in XML: `<Error><Code>NoSuchKey</Code><Message>...</Message></Error>`. */
export function s3Error(status: number, text: string): { message: string; code?: string } {
  const code = /<Code>([^<]{1,200})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,1000})<\/Message>/.exec(text)?.[1];
  return { message: `S3 answered ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`, ...(code ? { code } : {}) };
}

export function getObjectCall(target: ProviderTarget, location: S3Location): ResourceCall {
  return { request: s3Request('GET', objectUrl(target, location), {}), answer: () => ({}), error: s3Error };
}

interface TranslatedUpload {
  file: string;
  length: number;
  sha256: string;
  filename: string;
}

/** The `file` part of the client's form, through `translate`, into a temporary file; the `purpose` must be batch. */
async function translateToDisk(stream: Readable, contentType: string, translate: () => Transform): Promise<TranslatedUpload> {
  const file = path.join(tmpdir(), `gateway-bedrock-batch-${randomBytes(12).toString('hex')}.jsonl`);
  const hash = createHash('sha256');
  let length = 0;
  let purpose: string | undefined;
  let filename: string | undefined;
  let translator: Transform | undefined;
  let written: Promise<void> | undefined;
  const checkPurpose = (value: string) => {
    if (value !== 'batch') throw invalidParam('purpose', `Bedrock takes files for batch inference only: purpose must be "batch", got "${value.slice(0, 50)}".`);
  };
  const reader = createMultipartReader(boundaryOf(contentType), {
    field(name, value) {
      if (name !== 'purpose') return;
      checkPurpose(value);
      purpose = value;
    },
    file(name, partName) {
      if (name !== 'file' || translator) return new Writable({ write: (_chunk, _encoding, callback) => callback() });
      filename = partName;
      translator = translate();
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          length += chunk.length;
          callback(null, chunk);
        },
      });
      written = pipeline(translator, counted, createWriteStream(file));
      // a line the translator refuses ends the read of the form with that line's 400
      written.catch((error: Error) => reader.destroy(error));
      return translator;
    },
  });
  try {
    await pipeline(stream, reader);
    await written;
  } catch (error) {
    translator?.destroy();
    await rm(file, { force: true });
    throw error;
  }
  if (purpose === undefined) throw invalidParam('purpose', 'purpose is required: send the form field purpose=batch.');
  if (filename === undefined || length === 0) {
    await rm(file, { force: true });
    throw invalidParam('file', 'file is required: a JSONL file with at least one request line.');
  }
  return { file, length, sha256: hash.digest('hex'), filename };
}

export interface UploadSpec {
  stream: Readable;
  contentType: string;
  workspaceId: string;
  /** one OpenAI batch input line -> one Bedrock record, as a stream of lines */
  translate: () => Transform;
  now: () => Date;
}

/** The upload translated and made ready to PUT at `<bucket>/<workspace>/<file id>.jsonl`; its id is the gateway's. */
export async function storeBatchInput(spec: UploadSpec, target: ProviderTarget): Promise<StoredUpload> {
  const bucket = bucketOf(target, undefined);
  const translated = await translateToDisk(spec.stream, spec.contentType, spec.translate);
  const id = `file-${randomBytes(12).toString('hex')}`;
  const location = { bucket, key: `${spec.workspaceId}/${id}.jsonl` };
  const headers = { 'content-type': 'application/jsonl', 'content-length': String(translated.length), 'x-amz-content-sha256': translated.sha256 };
  const object = {
    id,
    object: 'file',
    bytes: translated.length,
    created_at: Math.floor(spec.now().getTime() / 1000),
    filename: translated.filename,
    purpose: 'batch',
    status: 'processed',
    status_details: null,
  };
  return {
    call: { request: s3Request('PUT', objectUrl(target, location), headers), answer: () => object, error: s3Error },
    body: createReadStream(translated.file),
    length: translated.length,
    location: s3Uri(location),
    dispose: () => rm(translated.file, { force: true }),
  };
}
