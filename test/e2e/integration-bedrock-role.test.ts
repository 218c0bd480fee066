/**
 * Bedrock through an assumed role, end to end: an integration with base credentials and `aws_auth_type:
 * assumedRole`, called as `@slug` with the official openai client. A fake STS on 127.0.0.1 checks the SigV4
 * signature of AssumeRole (service sts) with the base secret, the role and its external id, and answers the XML
 * AssumeRoleResponse; the fake Bedrock only accepts signatures by the temporary keys STS issued.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { integrations } from '../../src/storage/schema.ts';
import { startFakeBedrock, type FakeBedrock } from '../fakes/bedrock-upstream.ts';
import { startFakeSts, type FakeSts } from '../fakes/sts-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const BASE_KEY = 'AKIABASEGATEWAYTEST';
const BASE_SECRET = 'base/secret+access+key/for+sts+only';
const ROLE = 'arn:aws:iam::123456789012:role/bedrock-invoker';
const OPEN_ROLE = 'arn:aws:iam::123456789012:role/no-external-id';
const SHORT_ROLE = 'arn:aws:iam::123456789012:role/short-lived';
const EXTERNAL_ID = 'gateway-tenant-7f3a';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const MESSAGES = [{ role: 'user' as const, content: 'Hi' }];

let gateway: TestGateway;
let sts: FakeSts;
let bedrock: FakeBedrock;
let call: ReturnType<typeof adminClient>;
/** the keys the fake Bedrock accepts: only what STS issued */
const temporarySecrets: Record<string, string> = {};

function client(): OpenAI {
  return new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, Authorization: null } });
}

function roleConfig(extra: Record<string, unknown> = {}) {
  return {
    custom_host: bedrock.baseUrl,
    aws_region: 'eu-west-1',
    aws_access_key_id: BASE_KEY,
    aws_secret_access_key: BASE_SECRET,
    aws_auth_type: 'assumedRole',
    aws_role_arn: ROLE,
    aws_external_id: EXTERNAL_ID,
    aws_sts_endpoint: sts.url,
    ...extra,
  };
}

async function createIntegration(configurations: Record<string, unknown>): Promise<string> {
  const created = await call('POST', '/integrations', gateway.adminKey, { name: 'Bedrock role', ai_provider_id: 'bedrock', configurations });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.slug as string;
}

async function refusedWhenSaved(configurations: Record<string, unknown>, param: string, code?: string): Promise<void> {
  const answer = await call('POST', '/integrations', gateway.adminKey, { name: 'Refused', ai_provider_id: 'bedrock', configurations });
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error.param, param, JSON.stringify(answer.body));
  if (code) assert.equal(answer.body.error.code, code);
}

before(async () => {
  [sts, bedrock, gateway] = await Promise.all([
    startFakeSts({ baseSecrets: { [BASE_KEY]: BASE_SECRET }, roles: { [ROLE]: EXTERNAL_ID, [OPEN_ROLE]: null, [SHORT_ROLE]: null }, issuedSecrets: temporarySecrets }),
    startFakeBedrock(temporarySecrets),
    startTestGateway(),
  ]);
  call = adminClient(gateway.baseURL);
});

after(() => closeAll(() => gateway?.close(), () => sts?.close(), () => bedrock?.close()));

describe('aws_auth_type assumedRole', () => {
  test('AssumeRole is signed by the base key; Bedrock is signed by the temporary key with its session token', async () => {
    const slug = await createIntegration(roleConfig());
    const { data } = await client().chat.completions.create({ model: `@${slug}/${MODEL}`, messages: MESSAGES }).withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(sts.calls.length, 1);
    const issued = sts.issued[0]!;
    assert.equal(issued.signedBy, BASE_KEY);
    assert.equal(issued.region, 'eu-west-1');
    assert.equal(issued.form.RoleArn, ROLE);
    assert.equal(issued.form.ExternalId, EXTERNAL_ID);
    assert.equal(issued.form.Action, 'AssumeRole');
    const seen = bedrock.requests.at(-1)!;
    assert.equal(seen.signedBy?.accessKeyId, issued.accessKeyId, 'signed by the temporary key, which the fake Bedrock checked');
    assert.equal(seen.headers['x-amz-security-token'], issued.sessionToken);
  });

  test('the temporary credentials are held until shortly before they expire', async () => {
    const slug = await createIntegration(roleConfig({ aws_role_arn: OPEN_ROLE, aws_external_id: undefined }));
    const before = sts.calls.length;
    await Promise.all([1, 2, 3].map(() => client().chat.completions.create({ model: `@${slug}/${MODEL}`, messages: MESSAGES })));
    await client().chat.completions.create({ model: `@${slug}/${MODEL}`, messages: MESSAGES });
    assert.equal(sts.calls.length, before + 1, 'one AssumeRole for concurrent and later requests');
    assert.equal(sts.calls.at(-1)!.form.ExternalId, undefined);
    // credentials that expire within the refresh margin are used once and assumed again for the next request
    sts.durationSeconds = 30;
    const short = await createIntegration(roleConfig({ aws_role_arn: SHORT_ROLE, aws_external_id: undefined }));
    await client().chat.completions.create({ model: `@${short}/${MODEL}`, messages: MESSAGES });
    await client().chat.completions.create({ model: `@${short}/${MODEL}`, messages: MESSAGES });
    assert.equal(sts.calls.length, before + 3);
    sts.durationSeconds = 3600;
    assert.equal(bedrock.requests.at(-1)!.signedBy?.accessKeyId, sts.issued.at(-1)!.accessKeyId);
  });

  test('a role STS refuses is a 401 naming the role, and Bedrock is not called', async () => {
    const slug = await createIntegration(roleConfig({ aws_external_id: 'wrong-external-id' }));
    const before = bedrock.requests.length;
    await assert.rejects(client().chat.completions.create({ model: `@${slug}/${MODEL}`, messages: MESSAGES }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 401);
      const body = error.error as { code: string; message: string };
      assert.equal(body.code, 'aws_assume_role_failed');
      assert.match(body.message, /AccessDenied/);
      assert.ok(body.message.includes(ROLE));
      return true;
    });
    assert.equal(bedrock.requests.length, before);
  });

  test('the base secret is sealed and masked; an impossible role setup is refused when saved', async () => {
    const slug = await createIntegration(roleConfig());
    const shown = await call('GET', `/integrations/${slug}`, gateway.adminKey);
    assert.equal(shown.body.configurations.aws_secret_access_key, '********');
    assert.equal(shown.body.configurations.aws_role_arn, ROLE);
    const [row] = await gateway.gateway.database.db.select().from(integrations).where(eq(integrations.slug, slug));
    assert.ok(!JSON.stringify(row).includes(BASE_SECRET));
    const { aws_secret_access_key: _s, ...noSecret } = roleConfig();
    await refusedWhenSaved(noSecret, 'configurations.aws_secret_access_key', 'missing_configuration');
    const { aws_access_key_id: _k, ...noKeyId } = roleConfig();
    await refusedWhenSaved(noKeyId, 'configurations.aws_access_key_id', 'missing_configuration');
    const { aws_role_arn: _r, ...noRole } = roleConfig();
    await refusedWhenSaved(noRole, 'configurations.aws_role_arn', 'missing_configuration');
    await refusedWhenSaved(roleConfig({ aws_role_arn: 'arn:aws:iam::1:user/x' }), 'configurations.aws_role_arn');
    await refusedWhenSaved(roleConfig({ aws_auth_type: 'serviceRole' }), 'configurations.aws_auth_type', 'aws_service_role_unavailable');
    await refusedWhenSaved(roleConfig({ aws_sts_endpoint: 'http://169.254.169.254/' }), 'configurations.aws_sts_endpoint');
  });
});
