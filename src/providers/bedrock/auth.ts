/**
 * AWS Signature Version 4 for Bedrock
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
 * Credentials come per call from the x-gateway-aws-* headers; the access key id may instead be the client's
 * bearer token. Every request is signed afresh over the exact body bytes that are sent: a signature is never
 * cached (it covers the date, and each body differs).
 */
import { invalidParam } from '../../core/errors.ts';
import { sigV4Signer } from '../../upstream/sigv4.ts';
import type { ProviderTarget, UpstreamRequest } from '../contract.ts';
import { regionOf } from './endpoints.ts';

/** the signing name of bedrock-runtime, bedrock-agent-runtime and the bedrock control plane */
const SERVICE = 'bedrock';

/**
 * Set by s3.ts on the S3 requests of Bedrock batches, read and removed here: they go through the adapter's one
 * `prepare` (where an assumed role's credentials are put in), but S3 is signed under its own service name, with its
 * key path taken as it is and the payload hash it gives in x-amz-content-sha256 (the body is streamed from disk).
 */
export const S3_SIGNING_HEADER = 'x-gateway-internal-sigv4-s3';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

function missing(header: string, what: string) {
  return invalidParam(header, `Bedrock needs the ${what}: send ${header}.`, 'missing_header');
}

export function credentialsOf(target: ProviderTarget): AwsCredentials {
  const accessKeyId = target.cloud['aws-access-key-id'] ?? target.apiKey;
  if (!accessKeyId) throw missing('x-gateway-aws-access-key-id', 'AWS access key id');
  const secretAccessKey = target.cloud['aws-secret-access-key'];
  if (!secretAccessKey) throw missing('x-gateway-aws-secret-access-key', 'AWS secret access key');
  const sessionToken = target.cloud['aws-session-token'];
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** headers a previous signing (a retry of the same request) may have left, and the signer must write anew */
const SIGNATURE_HEADERS = ['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256'];

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const previous = query[key];
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return query;
}

export async function signRequest(request: UpstreamRequest, target: ProviderTarget, now: () => Date): Promise<UpstreamRequest> {
  const credentials = credentialsOf(target);
  const region = regionOf(target.cloud);
  const url = new URL(request.url);
  const s3 = Object.keys(request.headers).some((name) => name.toLowerCase() === S3_SIGNING_HEADER);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === S3_SIGNING_HEADER) continue;
    if (!SIGNATURE_HEADERS.includes(lower) || (s3 && lower === 'x-amz-content-sha256')) headers[lower] = value;
  }
  // the host the connection goes to is part of the signature; undici sends this header as given
  headers.host = url.host;
  const signer = await sigV4Signer(s3 ? { credentials, region, service: 's3', uriEscapePath: false } : { credentials, region, service: SERVICE });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      // as sent on the wire (model ids already percent-encoded); the signer encodes it once more, as AWS expects
      path: url.pathname,
      query: queryOf(url),
      headers,
      body: request.body,
    },
    { signingDate: now() },
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) out[name] = String(value);
  return { ...request, headers: out };
}
