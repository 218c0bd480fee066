/**
 * A fake AWS STS on 127.0.0.1 answering AssumeRole (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html)
 * over the Query API: `POST /` with a form (Action=AssumeRole, Version=2011-06-15, RoleArn, RoleSessionName,
 * DurationSeconds, ExternalId), signed with SigV4 under the service `sts`. The fake recomputes the signature with
 * the base secret it knows, checks the role and its external id, and answers the documented XML:
 * `AssumeRoleResponse/AssumeRoleResult/Credentials/{AccessKeyId, SecretAccessKey, SessionToken, Expiration}`, or
 * `ErrorResponse/Error/{Type, Code, Message}` (403 SignatureDoesNotMatch, 403 AccessDenied). Every temporary key it
 * issues is added to `issuedSecrets` (the map the fake Bedrock checks signatures with).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/sts\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

export interface StsIssued {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** the base key that signed the AssumeRole call */
  signedBy: string;
  region: string;
  form: Record<string, string>;
}

export interface FakeSts {
  /** the endpoint to store as aws_sts_endpoint */
  url: string;
  /** every AssumeRole call, answered or not */
  calls: Array<{ form: Record<string, string>; status: number }>;
  issued: StsIssued[];
  /** seconds the issued credentials live; 3600 unless a test changes it */
  durationSeconds: number;
  close(): Promise<void>;
}

export interface StsOptions {
  /** base access key id -> secret */
  baseSecrets: Record<string, string>;
  /** role ARN -> the external id it requires (null: none) */
  roles: Record<string, string | null>;
  /** temporary key id -> secret, filled as keys are issued (the fake Bedrock's map) */
  issuedSecrets: Record<string, string>;
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="${NS}">\n  <Error>\n    <Type>Sender</Type>\n    <Code>${code}</Code>\n    <Message>${xmlEscape(message)}</Message>\n  </Error>\n  <RequestId>${randomBytes(8).toString('hex')}</RequestId>\n</ErrorResponse>`;
}

async function signer(req: http.IncomingMessage, body: string, secrets: Record<string, string>): Promise<{ accessKeyId: string; region: string } | string> {
  const header = (name: string) => String(req.headers[name] ?? '');
  const match = AUTHORIZATION.exec(header('authorization'));
  if (!match) return `malformed Authorization: ${header('authorization')}`;
  const [, accessKeyId = '', , region = '', list = '', signature] = match;
  const secretAccessKey = secrets[accessKeyId];
  if (!secretAccessKey) return `The security token included in the request is invalid (${accessKeyId}).`;
  const headers: Record<string, string> = {};
  for (const name of list.split(';')) headers[name] = header(name);
  const amzDate = header('x-amz-date');
  const iso = amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  const check = new SignatureV4({ credentials: { accessKeyId, secretAccessKey }, region, service: 'sts', sha256: Sha256 });
  const url = new URL(req.url ?? '/', 'http://fake');
  const signed = await check.sign({ method: 'POST', protocol: 'http:', hostname: '127.0.0.1', path: url.pathname, query: {}, headers, body }, { signingDate: new Date(iso) });
  if (!String(signed.headers.authorization).endsWith(`Signature=${signature}`)) {
    return 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.';
  }
  return { accessKeyId, region };
}

export async function startFakeSts(options: StsOptions): Promise<FakeSts> {
  const state = { calls: [] as FakeSts['calls'], issued: [] as StsIssued[], durationSeconds: 3600 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        const reply = (status: number, xml: string) => {
          state.calls.push({ form, status });
          res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomBytes(8).toString('hex') });
          res.end(xml);
        };
        if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
          return reply(400, errorXml('InvalidAction', 'Could not find operation for this request.'));
        }
        const who = await signer(req, body, options.baseSecrets);
        if (typeof who === 'string') return reply(403, errorXml(who.startsWith('The request signature') ? 'SignatureDoesNotMatch' : 'InvalidClientTokenId', who));
        if (form.Action !== 'AssumeRole' || form.Version !== '2011-06-15') return reply(400, errorXml('InvalidAction', `Could not find operation ${form.Action} for version ${form.Version}.`));
        const roleArn = form.RoleArn ?? '';
        const required = options.roles[roleArn];
        if (required === undefined || (required !== null && form.ExternalId !== required)) {
          return reply(403, errorXml('AccessDenied', `User: arn:aws:iam::123456789012:user/${who.accessKeyId} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`));
        }
        const issued: StsIssued = {
          accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
          secretAccessKey: randomBytes(20).toString('base64'),
          sessionToken: `FwoGZXIvYXdzE${randomBytes(24).toString('base64')}`,
          signedBy: who.accessKeyId,
          region: who.region,
          form,
        };
        state.issued.push(issued);
        options.issuedSecrets[issued.accessKeyId] = issued.secretAccessKey;
        const expiration = new Date(Date.now() + state.durationSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        return reply(200, `<AssumeRoleResponse xmlns="${NS}">
  <AssumeRoleResult>
    <SourceIdentity>gateway</SourceIdentity>
    <AssumedRoleUser>
      <Arn>${xmlEscape(roleArn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/'))}/${xmlEscape(form.RoleSessionName ?? '')}</Arn>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:${xmlEscape(form.RoleSessionName ?? '')}</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>${xmlEscape(issued.sessionToken)}</SessionToken>
      <SecretAccessKey>${xmlEscape(issued.secretAccessKey)}</SecretAccessKey>
      <Expiration>${expiration}</Expiration>
      <AccessKeyId>${issued.accessKeyId}</AccessKeyId>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>`);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    calls: state.calls,
    issued: state.issued,
    get durationSeconds() {
      return state.durationSeconds;
    },
    set durationSeconds(value: number) {
      state.durationSeconds = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
