/**
 * Bedrock through an assumed IAM role (api-surface §3.3 BedrockConfiguration `aws_auth_type: assumedRole`,
 * `aws_role_arn`, `aws_external_id`): the stored base credentials sign an STS AssumeRole call
 * (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html: Query API, a form POST signed with
 * SigV4 under the service `sts`, answering XML), and the temporary credentials it returns (key, secret, session
 * token) sign the Bedrock call (auth.ts) in place of the base ones.
 *
 * - Without base credentials there is nothing to call STS with: a 400 naming the missing one (auth.ts credentialsOf),
 *   never an unsigned call. An instance role (`serviceRole`) is refused: this gateway does not use its host's role.
 * - STS is https://sts.{region}.amazonaws.com unless `aws_sts_endpoint` names another (a VPC endpoint); either way it
 *   goes through the SSRF guard (shared/credential-endpoint.ts).
 * - Temporary credentials are held per base credential, role and external id until 60 s before their Expiration
 *   (shared/credential-cache.ts), one cache per adapter; concurrent requests share one AssumeRole call.
 */
import { GatewayError, badGateway, invalidParam } from '../../core/errors.ts';
import { sigV4Signer } from '../../upstream/sigv4.ts';
import type { CloudSetting, PrepareContext, ProviderAdapter, ProviderTarget } from '../contract.ts';
import type { IntegrationDeclaration, PresentConfigurations } from '../integration-settings.ts';
import { createCredentialCache, type CredentialCache } from '../shared/credential-cache.ts';
import { postCredentialRequest } from '../shared/credential-endpoint.ts';
import { credentialsOf, type AwsCredentials } from './auth.ts';
import { regionOf } from './endpoints.ts';

/** The x-gateway-aws-* settings of an assumed role (added to Bedrock's own in registry.ts). */
export const assumeRoleSettings: readonly CloudSetting[] = [
  { key: 'aws-auth-type', configField: 'aws_auth_type' },
  { key: 'aws-role-arn', configField: 'aws_role_arn' },
  { key: 'aws-external-id', configField: 'aws_external_id' },
  { key: 'aws-sts-endpoint', configField: 'aws_sts_endpoint' },
];

const ROLE_HEADER = 'x-gateway-aws-role-arn';
const AUTH_TYPE_HEADER = 'x-gateway-aws-auth-type';
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@\/-]{1,512}$/;
const EXTERNAL_ID = /^[\w+=,.@:\/-]{2,1224}$/;
const SESSION_NAME = 'ai-gateway';
const DURATION_S = 3600;

export interface AssumedRole {
  roleArn: string;
  externalId: string | undefined;
}

/** The role to assume, when the settings name one; a 400 naming the setting when they are inconsistent. */
export function assumedRoleOf(cloud: Readonly<Record<string, string>>): AssumedRole | undefined {
  const type = cloud['aws-auth-type'];
  const roleArn = cloud['aws-role-arn'];
  if (type !== undefined && type !== 'accessKey' && type !== 'assumedRole') {
    throw invalidParam(AUTH_TYPE_HEADER, `${AUTH_TYPE_HEADER} (aws_auth_type) must be "accessKey" or "assumedRole", got "${type}".`, 'invalid_header');
  }
  if (type === 'accessKey' || (type === undefined && roleArn === undefined)) return undefined;
  if (!roleArn) throw invalidParam(ROLE_HEADER, `aws_auth_type "assumedRole" needs the role: send ${ROLE_HEADER} (aws_role_arn).`, 'missing_header');
  if (!ROLE_ARN.test(roleArn)) throw invalidParam(ROLE_HEADER, `${ROLE_HEADER} (aws_role_arn) must be an IAM role ARN (arn:aws:iam::<account>:role/<name>).`, 'invalid_header');
  const externalId = cloud['aws-external-id'] || undefined;
  if (externalId !== undefined && !EXTERNAL_ID.test(externalId)) {
    throw invalidParam('x-gateway-aws-external-id', 'x-gateway-aws-external-id (aws_external_id) must be 2 to 1224 characters of letters, digits and +=,.@:/-.', 'invalid_header');
  }
  return { roleArn, externalId };
}

function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  if (!match) return undefined;
  return match[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

function stsRefused(status: number, xml: string, role: AssumedRole): GatewayError {
  const detail = [xmlText(xml, 'Code'), xmlText(xml, 'Message')].filter(Boolean).join(': ') || xml.slice(0, 200);
  const message = `AWS STS refused to assume ${role.roleArn} with the stored credentials (${status}): ${detail}`;
  return status >= 500 ? badGateway(message, 'aws_assume_role_failed') : new GatewayError(401, 'authentication_error', message, { code: 'aws_assume_role_failed' });
}

async function assumeRole(base: AwsCredentials, role: AssumedRole, cloud: Readonly<Record<string, string>>, context: PrepareContext | undefined, now: () => number) {
  const region = regionOf(cloud);
  const endpoint = new URL(cloud['aws-sts-endpoint'] ?? `https://sts.${region}.amazonaws.com/`);
  const form = new URLSearchParams({ Action: 'AssumeRole', Version: '2011-06-15', RoleArn: role.roleArn, RoleSessionName: SESSION_NAME, DurationSeconds: String(DURATION_S) });
  if (role.externalId) form.set('ExternalId', role.externalId);
  const body = form.toString();
  const signer = await sigV4Signer({ credentials: base, region, service: 'sts' });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path: endpoint.pathname,
      headers: { host: endpoint.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/xml' },
      body,
    },
    { signingDate: new Date(now()) },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name] = String(value);
  const answer = await postCredentialRequest(
    { url: endpoint.toString(), headers, body, param: 'x-gateway-aws-sts-endpoint', service: 'AWS STS', failureCode: 'aws_assume_role_failed' },
    context,
  );
  if (answer.status !== 200) throw stsRefused(answer.status, answer.text, role);
  const accessKeyId = xmlText(answer.text, 'AccessKeyId');
  const secretAccessKey = xmlText(answer.text, 'SecretAccessKey');
  const sessionToken = xmlText(answer.text, 'SessionToken');
  const expiresAt = Date.parse(xmlText(answer.text, 'Expiration') ?? '');
  if (!accessKeyId || !secretAccessKey || !sessionToken || !Number.isFinite(expiresAt)) {
    throw badGateway('AWS STS answered AssumeRole without Credentials (AccessKeyId, SecretAccessKey, SessionToken, Expiration).', 'aws_assume_role_failed');
  }
  return { value: { accessKeyId, secretAccessKey, sessionToken }, expiresAt };
}

export interface AssumedRoles {
  /** the target with the role's temporary credentials in place of the base ones; the target itself when no role is named */
  targetFor(target: ProviderTarget, context: PrepareContext | undefined): Promise<ProviderTarget>;
}

export function createAssumedRoles(options: { now: () => number; cache?: CredentialCache<AwsCredentials> }): AssumedRoles {
  const cache = options.cache ?? createCredentialCache<AwsCredentials>({ now: options.now });
  return {
    async targetFor(target, context) {
      const role = assumedRoleOf(target.cloud);
      if (!role) return target;
      const base = credentialsOf(target);
      const parts = ['sts', target.cloud['aws-sts-endpoint'] ?? '', regionOf(target.cloud), base.accessKeyId, base.secretAccessKey, base.sessionToken ?? '', role.roleArn, role.externalId ?? ''];
      const temporary = await cache.get(parts, () => assumeRole(base, role, target.cloud, context, options.now), context?.signal);
      return {
        ...target,
        apiKey: undefined,
        cloud: { ...target.cloud, 'aws-access-key-id': temporary.accessKeyId, 'aws-secret-access-key': temporary.secretAccessKey, 'aws-session-token': temporary.sessionToken! },
      };
    },
  };
}

/** The Bedrock adapter signing with an assumed role's temporary credentials when the settings name a role. */
export function withAssumedRole(adapter: ProviderAdapter, roles: AssumedRoles): ProviderAdapter {
  const sign = adapter.prepare?.bind(adapter);
  if (!sign) throw new Error(`${adapter.name} signs nothing in prepare(): an assumed role has nothing to replace`);
  return {
    ...adapter,
    async prepare(request, target, context) {
      return sign(request, await roles.targetFor(target, context), context);
    },
  };
}

const AUTH_TYPES = ['accessKey', 'assumedRole'];

/** When saved: an auth type this gateway can use, and for a role the role and the base credentials that assume it. */
export function checkBedrockAuth(configurations: PresentConfigurations): void {
  const param = 'configurations.aws_auth_type';
  const type = configurations.value('aws_auth_type');
  if (type === 'serviceRole') {
    throw invalidParam(param, `${param} "serviceRole" would use the gateway host's own AWS role, which this gateway does not: use "assumedRole" with base credentials, or "accessKey".`, 'aws_service_role_unavailable');
  }
  if (type !== undefined && (typeof type !== 'string' || !AUTH_TYPES.includes(type))) throw invalidParam(param, `${param} must be one of ${AUTH_TYPES.join(', ')}.`);
  const roleArn = configurations.value('aws_role_arn');
  if (type !== 'assumedRole' && !(type === undefined && configurations.has('aws_role_arn'))) return;
  if (!configurations.has('aws_role_arn')) throw invalidParam('configurations.aws_role_arn', `${param} "assumedRole" needs configurations.aws_role_arn.`, 'missing_configuration');
  if (typeof roleArn === 'string' && !ROLE_ARN.test(roleArn)) {
    throw invalidParam('configurations.aws_role_arn', 'configurations.aws_role_arn must be an IAM role ARN (arn:aws:iam::<account>:role/<name>).');
  }
  if (!configurations.has('aws_secret_access_key') || !(configurations.has('aws_access_key_id') || configurations.hasKey)) {
    const missing = configurations.has('aws_secret_access_key') ? 'aws_access_key_id' : 'aws_secret_access_key';
    throw invalidParam(
      `configurations.${missing}`,
      `An assumed role is assumed with base credentials (aws_access_key_id and aws_secret_access_key), which sign the STS AssumeRole call: configurations.${missing} is missing.`,
      'missing_configuration',
    );
  }
}

export const bedrockIntegration: IntegrationDeclaration = { settings: [], urlFields: ['aws_sts_endpoint'], check: checkBedrockAuth };
