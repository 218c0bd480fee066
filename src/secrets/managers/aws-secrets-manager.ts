/**
 * AWS Secrets Manager, GetSecretValue (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html)
 * over the JSON 1.1 protocol: `POST /` with `X-Amz-Target: secretsmanager.GetSecretValue` and `{"SecretId"}`,
 * signed with SigV4 by the AWS SDK's own signer (@smithy/signature-v4) under the service name `secretsmanager`.
 * Errors come back as `{"__type", "message"}`, mostly with status 400: the type says what went wrong
 * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/CommonErrors.html).
 */
import { sigV4Signer } from '../../upstream/sigv4.ts';
import { managerRefused, secretUnavailable, type RefusalKind } from './errors.ts';
import { jsonObject } from './http.ts';
import type { ManagerCall } from './manager-call.ts';
import type { AwsAccessKeyAuth, RawSecret } from './types.ts';

const MANAGER = 'AWS Secrets Manager';
const SERVICE = 'secretsmanager';

/** the error types that mean the credentials (or their signature) were refused */
const CREDENTIAL_ERRORS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'AccessDeniedException',
  'ExpiredTokenException',
  'InvalidClientTokenId',
]);

export function awsEndpoint(auth: AwsAccessKeyAuth): URL {
  return new URL(auth.aws_endpoint_url ?? `https://secretsmanager.${auth.aws_region}.amazonaws.com/`);
}

function refusal(status: number, text: string): { status: number; kind: RefusalKind; detail: string } {
  const body = jsonObject(text) ?? {};
  // `__type` may be qualified: `com.amazonaws.secretsmanager#ResourceNotFoundException`
  const type = typeof body.__type === 'string' ? body.__type.slice(body.__type.lastIndexOf('#') + 1) : '';
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : '';
  const kind: RefusalKind = CREDENTIAL_ERRORS.has(type) || status === 403 ? 'credentials' : type === 'ResourceNotFoundException' ? 'not_found' : 'other';
  return { status, kind, detail: [type, message].filter(Boolean).join(': ') };
}

export async function fetchAwsSecret(auth: AwsAccessKeyAuth, secretPath: string, call: ManagerCall): Promise<RawSecret> {
  const url = awsEndpoint(auth);
  const body = JSON.stringify({ SecretId: secretPath });
  const signer = await sigV4Signer({
    credentials: { accessKeyId: auth.aws_access_key_id, secretAccessKey: auth.aws_secret_access_key },
    region: auth.aws_region,
    service: SERVICE,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      // the host the connection goes to is part of the signature; undici sends this header as given
      headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body,
    },
    { signingDate: new Date(call.now()) },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name] = String(value);
  const field = auth.aws_endpoint_url === undefined ? 'auth_config.aws_region' : 'auth_config.aws_endpoint_url';
  const answer = await call.http.send({ method: 'POST', url: url.toString(), headers, body }, { label: call.label, manager: MANAGER, field });
  if (answer.status !== 200) throw managerRefused(call.label, MANAGER, refusal(answer.status, answer.text));
  const secret = jsonObject(answer.text);
  if (typeof secret?.SecretString === 'string') return secret.SecretString;
  // a binary secret is base64 in the JSON; the gateway's uses (API keys, tokens) are text
  if (typeof secret?.SecretBinary === 'string') return Buffer.from(secret.SecretBinary, 'base64').toString('utf8');
  throw secretUnavailable(call.label, `${MANAGER} answered without SecretString or SecretBinary.`);
}
