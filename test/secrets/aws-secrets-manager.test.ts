/**
 * aws_sm references against a fake AWS Secrets Manager that checks the wire format (JSON 1.1 GetSecretValue) and
 * the SigV4 signature: the value, secret_key, the TTL cache, refusals turned into clear 502s without the secret,
 * the SSRF guard, and the auth types the gateway refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { awsEndpoint } from '../../src/secrets/managers/aws-secrets-manager.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';
import { startFakeAwsSecretsManager, type FakeAwsSecretsManager } from '../fakes/aws-secrets-manager-upstream.ts';
import { openResolverWorld, rejection, type ResolverWorld } from './resolver-world.ts';

const ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const VALUE = 'sk-aws-0123456789';

describe('AWS Secrets Manager', () => {
  let world: ResolverWorld;
  let aws: FakeAwsSecretsManager;
  const auth = (overrides: Record<string, string> = {}) => ({
    aws_auth_type: 'accessKey',
    aws_access_key_id: ACCESS_KEY_ID,
    aws_secret_access_key: SECRET_ACCESS_KEY,
    aws_region: 'eu-west-1',
    aws_endpoint_url: aws.endpoint,
    ...overrides,
  });
  const mapping = (secret_reference_id: string, secret_key?: string) => ({ secret_reference_id, ...(secret_key ? { secret_key } : {}) });

  before(async () => {
    world = await openResolverWorld();
    aws = await startFakeAwsSecretsManager({ [ACCESS_KEY_ID]: SECRET_ACCESS_KEY });
    aws.secrets.set('prod/openai', JSON.stringify({ api_key: VALUE, organisation: 'org-1' }));
    aws.secrets.set('plain', VALUE);
  });

  after(async () => {
    await world?.close();
    await aws?.close();
  });

  test('GetSecretValue is signed with SigV4 for secretsmanager in the region; secret_key picks a key of the JSON secret', async () => {
    const reference = await world.reference({ manager_type: 'aws_sm', auth_config: auth(), secret_path: 'prod/openai', secret_key: 'api_key' });
    const resolve = await world.resolver();
    assert.equal(await resolve(world.organisationId, world.workspaceId, mapping(reference.slug)), VALUE);
    const sent = aws.requests.at(-1)!;
    assert.equal(sent.target, 'secretsmanager.GetSecretValue');
    assert.equal(sent.contentType, 'application/x-amz-json-1.1');
    assert.deepEqual(sent.body, { SecretId: 'prod/openai' });
    assert.ok(sent.signedBy, 'a valid signature');
    assert.equal(sent.signedBy.accessKeyId, ACCESS_KEY_ID);
    assert.equal(sent.signedBy.region, 'eu-west-1');
    assert.equal(sent.signedBy.service, 'secretsmanager');
    for (const name of ['host', 'x-amz-date', 'x-amz-target', 'content-type']) assert.ok(sent.signedBy.signedHeaders.includes(name), name);
    // a mapping's own secret_key wins over the reference's
    assert.equal(await resolve(world.organisationId, world.workspaceId, mapping(reference.id, 'organisation')), 'org-1');
  });

  test('a string secret is used whole; the default endpoint is the region\'s', async () => {
    const reference = await world.reference({ manager_type: 'aws_sm', auth_config: auth(), secret_path: 'plain' });
    const resolve = await world.resolver();
    assert.equal(await resolve(world.organisationId, world.workspaceId, mapping(reference.slug)), VALUE);
    const { aws_endpoint_url: _unused, ...standard } = auth();
    assert.equal(awsEndpoint({ ...standard, aws_auth_type: 'accessKey' }).href, 'https://secretsmanager.eu-west-1.amazonaws.com/');
  });

  test('a value is fetched once for two resolutions within the TTL, and again after it', async () => {
    const reference = await world.reference({ manager_type: 'aws_sm', auth_config: auth(), secret_path: 'plain' });
    let clock = Date.now();
    const resolve = await world.resolver({ now: () => clock });
    const before = aws.requests.length;
    const [first, second] = await Promise.all([
      resolve(world.organisationId, world.workspaceId, mapping(reference.slug)),
      resolve(world.organisationId, world.workspaceId, mapping(reference.slug)),
    ]);
    assert.equal(await resolve(world.organisationId, world.workspaceId, mapping(reference.id)), VALUE);
    assert.deepEqual([first, second], [VALUE, VALUE]);
    assert.equal(aws.requests.length - before, 1, 'one GetSecretValue for three resolutions');
    clock += 61_000;
    assert.equal(await resolve(world.organisationId, world.workspaceId, mapping(reference.slug)), VALUE);
    assert.equal(aws.requests.length - before, 2, 'fetched again once the TTL ran out');
  });

  test('a wrong secret access key: a 502 naming the reference and AWS\'s error, never a secret', async () => {
    const reference = await world.reference({ manager_type: 'aws_sm', slug: 'wrong-aws-key', auth_config: auth({ aws_secret_access_key: 'not-the-right-key' }), secret_path: 'plain' });
    const resolve = await world.resolver();
    const { status, body } = await rejection(resolve(world.organisationId, world.workspaceId, mapping(reference.slug)));
    assert.equal(status, 502);
    assert.equal(body.error.code, 'secret_manager_auth_failed');
    assert.match(body.error.message, /AWS Secrets Manager refused the credentials of secret reference "wrong-aws-key" \(400: InvalidSignatureException/);
    for (const secret of ['not-the-right-key', SECRET_ACCESS_KEY, VALUE]) assert.ok(!JSON.stringify(body).includes(secret));
    assert.equal(aws.requests.at(-1)!.signedBy, undefined);
  });

  test('an unknown access key is refused credentials; a missing secret is secret_not_found', async () => {
    const resolve = await world.resolver();
    const unknownKey = await world.reference({ manager_type: 'aws_sm', auth_config: auth({ aws_access_key_id: 'AKIAUNKNOWN000000000' }), secret_path: 'plain' });
    const refused = await rejection(resolve(world.organisationId, world.workspaceId, mapping(unknownKey.slug)));
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, 'secret_manager_auth_failed');
    assert.match(refused.body.error.message, /UnrecognizedClientException/);
    const missing = await world.reference({ manager_type: 'aws_sm', auth_config: auth(), secret_path: 'prod/nothing-here' });
    const notFound = await rejection(resolve(world.organisationId, world.workspaceId, mapping(missing.slug)));
    assert.equal(notFound.status, 502);
    assert.equal(notFound.body.error.code, 'secret_not_found');
    assert.match(notFound.body.error.message, /ResourceNotFoundException/);
  });

  test('an endpoint on a private address not allowlisted is refused before any connection', async () => {
    const reference = await world.reference({ manager_type: 'aws_sm', auth_config: auth(), secret_path: 'plain' });
    const resolve = await world.resolver({ allowlist: parseAllowlist([]) });
    const before = aws.requests.length;
    const { status, body } = await rejection(resolve(world.organisationId, world.workspaceId, mapping(reference.slug)));
    assert.equal(status, 400);
    assert.equal(body.error.code, 'secret_manager_blocked');
    assert.match(body.error.message, /auth_config\.aws_endpoint_url/);
    assert.equal(aws.requests.length, before);
  });

  test('assumedRole and serviceRole are refused with a 400 naming aws_auth_type; a bad region names aws_region', async () => {
    for (const type of ['assumedRole', 'serviceRole']) {
      const { status, body } = await rejection(world.reference({
        manager_type: 'aws_sm', auth_config: { aws_auth_type: type, aws_role_arn: 'arn:aws:iam::123456789012:role/x', aws_region: 'us-east-1' }, secret_path: 'plain',
      }));
      assert.equal(status, 400);
      assert.equal(body.error.param, 'auth_config.aws_auth_type');
      assert.equal(body.error.code, 'unsupported_auth_type');
    }
    const region = await rejection(world.reference({ manager_type: 'aws_sm', auth_config: auth({ aws_region: 'evil.example.com/x' }), secret_path: 'plain' }));
    assert.equal(region.body.error.param, 'auth_config.aws_region');
  });
});
