/**
 * A fake AWS Secrets Manager on 127.0.0.1 speaking the JSON 1.1 protocol of GetSecretValue
 * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html): `POST /` with
 * `X-Amz-Target: secretsmanager.GetSecretValue`, `Content-Type: application/x-amz-json-1.1` and `{"SecretId"}`.
 * Every request must carry a valid SigV4 signature for the `secretsmanager` service: the fake checks the
 * Authorization header's shape and credential scope and recomputes the signature over what it received. Errors
 * are AWS's: `{"__type", "message"}` with status 400 (an unknown key, a bad signature, a missing secret).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsRecordedRequest {
  target: string;
  contentType: string;
  body: unknown;
  /** from the credential scope of a valid signature */
  signedBy: { accessKeyId: string; day: string; region: string; service: string; signedHeaders: string[] } | undefined;
}

export interface FakeAwsSecretsManager {
  /** http://127.0.0.1:<port>/: the auth_config's aws_endpoint_url */
  endpoint: string;
  requests: AwsRecordedRequest[];
  /** secret name -> SecretString */
  secrets: Map<string, string>;
  close(): Promise<void>;
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

function header(request: http.IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

type Verdict = { error: string; type: string } | NonNullable<AwsRecordedRequest['signedBy']>;

async function checkSignature(request: http.IncomingMessage, body: string, keys: Record<string, string>): Promise<Verdict> {
  const match = AUTHORIZATION.exec(header(request, 'authorization'));
  if (!match) return { type: 'IncompleteSignature', error: 'Authorization header requires Credential, SignedHeaders and Signature.' };
  const [, accessKeyId = '', day = '', region = '', service = '', list = '', signature = ''] = match;
  if (service !== 'secretsmanager') return { type: 'InvalidSignatureException', error: `Credential should be scoped to correct service: 'secretsmanager'.` };
  const signedHeaders = list.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-target']) {
    if (!signedHeaders.includes(required)) return { type: 'InvalidSignatureException', error: `${required} is not signed.` };
  }
  const amzDate = header(request, 'x-amz-date');
  if (!amzDate.startsWith(day)) return { type: 'InvalidSignatureException', error: 'Date in Credential scope does not match X-Amz-Date.' };
  const secretAccessKey = keys[accessKeyId];
  if (!secretAccessKey) return { type: 'UnrecognizedClientException', error: 'The security token included in the request is invalid.' };
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = header(request, name);
  const url = new URL(request.url ?? '/', 'http://fake');
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey }, region, service, sha256: Sha256 });
  const iso = amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  const signed = await signer.sign(
    { method: request.method ?? 'POST', protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, headers, body },
    { signingDate: new Date(iso) },
  );
  if (!String(signed.headers.authorization ?? '').endsWith(`Signature=${signature}`)) {
    return {
      type: 'InvalidSignatureException',
      error: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return { accessKeyId, day, region, service, signedHeaders };
}

/** `keys`: access key id -> secret access key the fake accepts. */
export async function startFakeAwsSecretsManager(keys: Record<string, string>): Promise<FakeAwsSecretsManager> {
  const requests: AwsRecordedRequest[] = [];
  const secrets = new Map<string, string>();
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', async () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'fake-request-id' });
        response.end(JSON.stringify(body));
      };
      const target = header(request, 'x-amz-target');
      const contentType = header(request, 'content-type');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const verdict = await checkSignature(request, text, keys);
      const signedBy = 'error' in verdict ? undefined : verdict;
      requests.push({ target, contentType, body, signedBy });
      if ('error' in verdict) return send(400, { __type: verdict.type, message: verdict.error });
      if (request.method !== 'POST' || target !== 'secretsmanager.GetSecretValue' || contentType !== 'application/x-amz-json-1.1') {
        return send(400, { __type: 'UnknownOperationException', message: 'POST / with X-Amz-Target secretsmanager.GetSecretValue' });
      }
      const secretId = (body as { SecretId?: unknown } | undefined)?.SecretId;
      const value = typeof secretId === 'string' ? secrets.get(secretId) : undefined;
      if (value === undefined) return send(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      return send(200, {
        ARN: `arn:aws:secretsmanager:${signedBy!.region}:123456789012:secret:${String(secretId)}-AbCdEf`,
        Name: secretId,
        VersionId: 'EXAMPLE1-90ab-cdef-fedc-ba987SECRET1',
        SecretString: value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 1523477145.713,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/`,
    requests,
    secrets,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
