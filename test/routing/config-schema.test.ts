/** parseConfig: valid configs (deep nesting, references, bare cache mode) and the exact path of every invalid field. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import type { CloudSettings } from '../../src/providers/contract.ts';
import { ConfigSchema, createConfigParser, parseConfig, type Config, type ParseConfigOptions } from '../../src/routing/config-schema.ts';

function inline(raw: unknown, options?: ParseConfigOptions): Config {
  const parsed = parseConfig(raw, options);
  assert.equal(parsed.kind, 'inline');
  if (parsed.kind !== 'inline') throw new Error('unreachable');
  return parsed.config;
}

/** Asserts a 400 whose param is exactly `param` and whose message starts with it. */
function rejects(raw: unknown, param: string, messagePart?: string, options?: ParseConfigOptions): void {
  assert.throws(
    () => parseConfig(typeof raw === 'string' ? raw : JSON.stringify(raw), options),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${String(error)}`);
      assert.equal(error.status, 400);
      assert.equal(error.param, param, `param for ${JSON.stringify(raw)}: ${error.message}`);
      assert.ok(error.message.startsWith(param), `message names the path: ${error.message}`);
      if (messagePart) assert.ok(error.message.includes(messagePart), `"${error.message}" includes "${messagePart}"`);
      return true;
    },
  );
}

const openai = { provider: 'openai', api_key: 'sk-a' };

test('a single-target config parses unchanged', () => {
  const config = { ...openai, retry: { attempts: 3, on_status_codes: [429, 529] }, request_timeout: 5000 };
  assert.deepEqual(inline(JSON.stringify(config)), config);
});

test('a guardrails-only root needs no provider (the request headers choose it)', () => {
  assert.deepEqual(inline('{"input_guardrails":["pg-patron-1d0224"]}'), { input_guardrails: ['pg-patron-1d0224'] });
});

test('every documented field is accepted', () => {
  const config = {
    name: 'all',
    weight: 2,
    provider: 'bedrock',
    api_key: 'k',
    custom_host: 'https://proxy.example.com/v1',
    override_params: { model: 'x', temperature: 0 },
    retry: { attempts: 0, on_status_codes: [500], use_retry_after_header: true },
    request_timeout: 1,
    cache: {
      mode: 'semantic',
      max_age: 3600,
      similarity_threshold: 0.9,
      embedding: { provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', api_key: 'e', custom_host: 'https://embed.example.com', aws_region: 'eu-west-1', azure_deployment_id: 'd' },
    },
    input_guardrails: ['g-1', { type: 'guardrail', id: 'inline' }],
    output_guardrails: [{ id: 'x' }],
    before_request_hooks: [{ id: 'h' }],
    after_request_hooks: [],
    forward_headers: ['X-Trace'],
    fetch_integrated_models: true,
    strict_open_ai_compliance: false,
    strict_reference_compliance: true,
    aws_access_key_id: 'a', aws_secret_access_key: 'b', aws_session_token: 'c', aws_region: 'us-east-1',
    vertex_project_id: 'p', vertex_region: 'europe-west4', vertex_service_account_json: '{}',
    azure_resource_name: 'r', azure_deployment_id: 'd', azure_api_version: '2024-10-21', azure_model_name: 'm',
    azure_auth_mode: 'entra',
  };
  const cloudFields = ['aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'aws_region', 'vertex_project_id', 'vertex_region', 'vertex_service_account_json', 'azure_resource_name', 'azure_deployment_id', 'azure_api_version', 'azure_model_name', 'azure_auth_mode'];
  const withoutCloud = Object.fromEntries(Object.entries(config).filter(([field]) => !cloudFields.includes(field)));
  // the cloud fields are gathered under their x-gateway-* header suffixes, the embedding target's too
  assert.deepEqual(inline(config), {
    ...withoutCloud,
    cache: { ...config.cache, embedding: { provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', api_key: 'e', custom_host: 'https://embed.example.com', cloud: { 'aws-region': 'eu-west-1', 'azure-deployment-id': 'd' } } },
    cloud: {
      'aws-access-key-id': 'a', 'aws-secret-access-key': 'b', 'aws-session-token': 'c', 'aws-region': 'us-east-1',
      'vertex-project-id': 'p', 'vertex-region': 'europe-west4', 'vertex-service-account-json': '{}',
      'azure-resource-name': 'r', 'azure-deployment-id': 'd', 'azure-api-version': '2024-10-21', 'azure-model-name': 'm',
      'azure-auth-mode': 'entra',
    },
  });
});

test('a deeply nested config (loadbalance of fallbacks of conditionals) parses', () => {
  const conditional = (plan: string) => ({
    strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.plan': plan }, then: 'a' }], default: 'b' },
    targets: [{ name: 'a', ...openai }, { name: 'b', provider: 'anthropic', api_key: 'k' }],
  });
  const config = {
    strategy: { mode: 'loadbalance' },
    targets: [
      { weight: 1, strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [conditional('pro'), openai] },
      { weight: 0, strategy: { mode: 'fallback' }, targets: [{ strategy: { mode: 'single' }, targets: [conditional('free')] }] },
    ],
  };
  assert.deepEqual(inline(JSON.stringify(config)), config);
});

test('a config id or slug is a reference to resolve', () => {
  assert.deepEqual(parseConfig('pc-abc-123'), { kind: 'reference', id: 'pc-abc-123' });
  assert.deepEqual(parseConfig('  my_config.v2 '), { kind: 'reference', id: 'my_config.v2' });
});

test('a bare cache mode is normalised to an object, at any depth', () => {
  assert.deepEqual(inline({ ...openai, cache: 'simple' }).cache, { mode: 'simple' });
  const nested = inline({ strategy: { mode: 'fallback' }, targets: [{ ...openai, cache: 'semantic' }] });
  assert.deepEqual(nested.targets?.[0]?.cache, { mode: 'semantic' });
});

test('a target inherits its destination from an ancestor', () => {
  const config = { ...openai, strategy: { mode: 'fallback' }, targets: [{ override_params: { model: 'a' } }, { retry: { attempts: 1 } }] };
  assert.equal(inline(config).targets?.length, 2);
});

test('malformed header values name x-gateway-config', () => {
  rejects('{not json', 'x-gateway-config', 'not valid JSON');
  rejects('has spaces', 'x-gateway-config', 'config id or a JSON object');
  rejects('', 'x-gateway-config');
  rejects('[1,2]', 'config', 'JSON object');
  rejects('"pc-abc"', 'config', 'JSON object');
  assert.throws(() => parseConfig(null), (error: unknown) => error instanceof GatewayError && error.param === 'config');
});

test('schema violations name the exact path', () => {
  const fallback = (...targets: object[]) => ({ strategy: { mode: 'fallback' }, targets });
  const cases: Array<[unknown, string, string?]> = [
    [{ ...openai, foo: 1 }, 'config.foo', 'is not allowed'],
    [fallback(openai, fallback(openai, { ...openai, colour: 'red' })), 'config.targets[1].targets[1].colour', 'is not allowed'],
    [fallback(openai, { ...openai, retry: { attempts: 11 } }), 'config.targets[1].retry.attempts', 'between 0 and 10'],
    [{ ...openai, retry: { attempts: 1.5 } }, 'config.retry.attempts', 'integer'],
    [{ ...openai, retry: { on_status_codes: [429] } }, 'config.retry.attempts', 'required'],
    [{ ...openai, retry: { attempts: 1, backoff: 2 } }, 'config.retry.backoff'],
    [{ ...openai, retry: { attempts: 1, on_status_codes: [429, 99] } }, 'config.retry.on_status_codes[1]'],
    [{ ...openai, retry: { attempts: 1, use_retry_after_header: 'yes' } }, 'config.retry.use_retry_after_header', 'boolean'],
    [{ strategy: { mode: 'roundrobin' }, targets: [openai] }, 'config.strategy.mode', "'fallback'"],
    [{ strategy: {}, targets: [openai] }, 'config.strategy.mode', 'required'],
    [{ strategy: { mode: 'fallback', on_status_codes: [600] }, targets: [openai] }, 'config.strategy.on_status_codes[0]'],
    [{ strategy: { mode: 'fallback', retries: 1 }, targets: [openai] }, 'config.strategy.retries'],
    [{ strategy: { mode: 'conditional', conditions: [] }, targets: [openai] }, 'config.strategy.conditions', 'at least 1'],
    [{ strategy: { mode: 'conditional', conditions: [{ query: {} }] }, targets: [openai] }, 'config.strategy.conditions[0].then'],
    [{ strategy: { mode: 'conditional', conditions: [{ query: 'x', then: 'a' }] }, targets: [openai] }, 'config.strategy.conditions[0].query'],
    [{ strategy: { mode: 'fallback' }, targets: [] }, 'config.targets', 'between 1 and 100'],
    [{ strategy: { mode: 'fallback' }, targets: Array.from({ length: 101 }, () => openai) }, 'config.targets'],
    [{ strategy: { mode: 'loadbalance' }, targets: [{ ...openai, weight: -1 }] }, 'config.targets[0].weight'],
    [{ ...openai, weight: '1' }, 'config.weight', 'number'],
    [{ ...openai, name: '' }, 'config.name', 'must not be empty'],
    [{ provider: 1 }, 'config.provider', 'string'],
    [{ ...openai, request_timeout: 0 }, 'config.request_timeout'],
    [{ ...openai, request_timeout: 10.5 }, 'config.request_timeout', 'integer'],
    [{ ...openai, cache: 'fast' }, 'config.cache'],
    [{ ...openai, cache: { mode: 'simple', max_age: 0 } }, 'config.cache.max_age'],
    [{ ...openai, cache: { mode: 'simple', ttl: 1 } }, 'config.cache.ttl'],
    [{ ...openai, cache: { mode: 'semantic', similarity_threshold: 0 } }, 'config.cache.similarity_threshold', 'greater than 0'],
    [{ ...openai, cache: { mode: 'semantic', similarity_threshold: 1.01 } }, 'config.cache.similarity_threshold', 'less than or equal to 1'],
    [{ ...openai, cache: { mode: 'semantic', similarity_threshold: '0.9' } }, 'config.cache.similarity_threshold', 'number'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { provider: 'openai' } } }, 'config.cache.embedding.model', 'required'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { model: 'm' } } }, 'config.cache.embedding.provider', 'required'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { provider: 'openai', model: '' } } }, 'config.cache.embedding.model', 'must not be empty'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'm', dims: 3 } } }, 'config.cache.embedding.dims', 'is not allowed'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'm', aws_region: 1 } } }, 'config.cache.embedding.aws_region'],
    [{ ...openai, override_params: 'gpt-4o' }, 'config.override_params', 'object'],
    [{ ...openai, input_guardrails: ['ok', 1] }, 'config.input_guardrails[1]'],
    [{ ...openai, output_guardrails: 'g-1' }, 'config.output_guardrails', 'array'],
    [{ ...openai, before_request_hooks: ['h'] }, 'config.before_request_hooks[0]'],
    [{ ...openai, after_request_hooks: {} }, 'config.after_request_hooks'],
    [{ ...openai, forward_headers: ['bad header'] }, 'config.forward_headers[0]', 'invalid format'],
    [{ ...openai, fetch_integrated_models: 'yes' }, 'config.fetch_integrated_models', 'boolean'],
    [{ ...openai, strict_open_ai_compliance: 0 }, 'config.strict_open_ai_compliance'],
    [{ ...openai, strict_reference_compliance: null }, 'config.strict_reference_compliance'],
    [{ provider: 'bedrock', aws_region: '' }, 'config.aws_region', 'must not be empty'],
    [{ provider: 'vertex-ai', vertex_service_account_json: {} }, 'config.vertex_service_account_json', 'string'],
    [{ provider: 'azure-openai', azure_resource_name: 5 }, 'config.azure_resource_name'],
  ];
  for (const [config, param, part] of cases) rejects(config, param, part);
});

test('semantic rules name the exact path', () => {
  const named = (name: string) => ({ name, ...openai });
  const conditional = (strategy: object, targets: object[] = [named('a'), named('b')]) => ({
    strategy: { mode: 'conditional', ...strategy },
    targets,
  });
  const when = [{ query: { 'metadata.plan': 'pro' }, then: 'a' }];
  const cases: Array<[unknown, string, string?]> = [
    [{ strategy: { mode: 'fallback' } }, 'config.targets', 'required when a strategy'],
    [{ targets: [openai] }, 'config.strategy', 'required when targets'],
    [{ strategy: { mode: 'fallback' }, targets: [openai, { api_key: 'x' }] }, 'config.targets[1]', 'provider, virtual_key or targets'],
    [{ strategy: { mode: 'single' }, targets: [{ strategy: { mode: 'single' }, targets: [{}] }] }, 'config.targets[0].targets[0]'],
    [conditional({}), 'config.strategy.conditions', 'required with mode conditional'],
    [conditional({ conditions: when }, [named('a'), openai]), 'config.targets[1].name', 'required'],
    [conditional({ conditions: when }, [named('a'), named('a')]), 'config.targets[1].name', 'already used by config.targets[0]'],
    [conditional({ conditions: [...when, { query: {}, then: 'c' }] }), 'config.strategy.conditions[1].then', '"c"'],
    [conditional({ conditions: when, default: 'z' }), 'config.strategy.default', '"z"'],
    [conditional({ conditions: [{ query: { $foo: 1 }, then: 'a' }] }), 'config.strategy.conditions[0].query.$foo'],
    [conditional({ conditions: [{ query: { 'metadata.x': { $regex: '(' } }, then: 'a' }] }), 'config.strategy.conditions[0].query.metadata.x.$regex'],
    [{ strategy: { mode: 'fallback', conditions: when }, targets: [openai] }, 'config.strategy.conditions', 'only allowed with mode conditional'],
    [{ strategy: { mode: 'loadbalance', default: 'a' }, targets: [openai] }, 'config.strategy.default'],
    [{ strategy: { mode: 'loadbalance', on_status_codes: [500] }, targets: [openai] }, 'config.strategy.on_status_codes', 'only allowed with mode fallback'],
    [{ strategy: { mode: 'loadbalance' }, targets: [{ ...openai, weight: 0 }, { ...openai, weight: 0 }] }, 'config.targets', 'weight above 0'],
    [{ ...openai, custom_host: 'ftp://files.example.com' }, 'config.custom_host', 'http or https URL'],
    [{ ...openai, cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'm', custom_host: 'file:///x' } } }, 'config.cache.embedding.custom_host', 'http or https URL'],
    [{ ...openai, cache: { mode: 'simple', similarity_threshold: 0.9 } }, 'config.cache.similarity_threshold', 'only allowed with mode semantic'],
    [{ strategy: { mode: 'fallback' }, targets: [openai, { ...openai, cache: { mode: 'simple', embedding: { provider: 'openai', model: 'm' } } }] }, 'config.targets[1].cache.embedding', 'only allowed with mode semantic'],
    [{ ...openai, custom_host: 'not a url' }, 'config.custom_host'],
    [{ ...openai, forward_headers: ['x-trace', 'X-Gateway-Forward-Headers'] }, 'config.forward_headers[1]'],
    [
      { strategy: { mode: 'fallback' }, targets: [openai, { strategy: { mode: 'loadbalance' }, targets: [openai, { ...openai, retry: { attempts: -1 } }] }] },
      'config.targets[1].targets[1].retry.attempts',
    ],
  ];
  for (const [config, param, part] of cases) rejects(config, param, part);
});

test('an injected provider check refuses unknown providers by path', () => {
  const options = { isKnownProvider: (name: string) => name === 'openai' };
  rejects({ strategy: { mode: 'fallback' }, targets: [openai, { provider: 'nope' }] }, 'config.targets[1].provider', 'unknown provider "nope"', options);
  assert.equal(inline(openai, options).provider, 'openai');
});

test('an injected embeddings check refuses an embedding provider that cannot embed, by path', () => {
  const options = { isKnownProvider: (name: string) => name !== 'nope', servesEmbeddings: (name: string) => name === 'openai' };
  const semantic = (provider: string) => ({ ...openai, cache: { mode: 'semantic', embedding: { provider, model: 'm' } } });
  rejects(semantic('nope'), 'config.cache.embedding.provider', 'unknown provider "nope"', options);
  rejects(semantic('anthropic'), 'config.cache.embedding.provider', 'does not serve embeddings', options);
  assert.equal(inline(semantic('openai'), options).cache?.embedding?.provider, 'openai');
});

test('the exported schema is a recursive JSON schema for the OpenAPI document', () => {
  assert.equal(ConfigSchema.$id, 'GatewayConfig');
  assert.equal(ConfigSchema.additionalProperties, false);
  assert.deepEqual(JSON.parse(JSON.stringify(ConfigSchema.properties.targets.items)), { $ref: 'GatewayConfig' });
});

test('a config nested past 64 levels is a 400 naming where, not a stack overflow', () => {
  let config: Record<string, unknown> = { provider: 'openai' };
  for (let level = 0; level < 2_000; level += 1) config = { strategy: { mode: 'fallback' }, targets: [config] };
  rejects(config, `config${'.targets[0]'.repeat(32)}`, 'nested deeper than 64 levels');
  let ok: Record<string, unknown> = { provider: 'openai' };
  for (let level = 0; level < 20; level += 1) ok = { strategy: { mode: 'fallback' }, targets: [ok] };
  assert.equal(parseConfig(ok).kind, 'inline');
});

describe('the cloud fields come from the adapters\' declarations', () => {
  const declarations: CloudSettings[] = [
    { headerPrefix: 'x-gateway-foo-', settings: [{ key: 'foo-region', configField: 'foo_region' }, { key: 'foo-secret', configField: 'foo_secret', secret: true }, { key: 'foo-mode' }] },
    // a second adapter of the same cloud shares a field
    { headerPrefix: 'x-gateway-foo-', settings: [{ key: 'foo-region', configField: 'foo_region' }] },
  ];
  const parser = createConfigParser(declarations);

  test('a declared field is accepted on a target and an embedding target, and gathered under its key', () => {
    const parsed = parser.parse({
      provider: 'p',
      foo_region: 'r1',
      foo_secret: 's',
      cache: { mode: 'semantic', embedding: { provider: 'p', model: 'm', foo_region: 'r2' } },
      strategy: { mode: 'single' },
      targets: [{ foo_region: 'r3' }],
    });
    assert.equal(parsed.kind, 'inline');
    if (parsed.kind !== 'inline') return;
    assert.deepEqual(parsed.config.cloud, { 'foo-region': 'r1', 'foo-secret': 's' });
    assert.deepEqual(parsed.config.cache?.embedding?.cloud, { 'foo-region': 'r2' });
    assert.deepEqual(parsed.config.targets?.[0], { cloud: { 'foo-region': 'r3' } });
    assert.ok('foo_region' in parser.schema.properties, 'the published schema lists it');
  });

  test('a field no adapter declares is refused by path, and a header-only setting is no config field', () => {
    const refuses = (config: object, param: string) =>
      assert.throws(() => parser.parse(config), (error: unknown) => error instanceof GatewayError && error.param === param && /is not allowed/.test(error.message));
    refuses({ provider: 'p', aws_region: 'us-east-1' }, 'config.aws_region');
    refuses({ provider: 'p', foo_mode: 'x' }, 'config.foo_mode');
    refuses({ provider: 'p', cache: { mode: 'semantic', embedding: { provider: 'p', model: 'm', azure_api_version: 'v' } } }, 'config.cache.embedding.azure_api_version');
  });

  test('a declaration that reuses a config field of the grammar, or sends one field to two keys, stops the start', () => {
    assert.throws(() => createConfigParser([{ headerPrefix: 'x-gateway-foo-', settings: [{ key: 'foo-key', configField: 'api_key' }] }]), /api_key is already a config field/);
    assert.throws(() => createConfigParser([{ headerPrefix: 'x-gateway-foo-', settings: [{ key: 'foo-model', configField: 'model' }] }]), /model is already a config field/);
    assert.throws(
      () => createConfigParser([...declarations, { headerPrefix: 'x-gateway-bar-', settings: [{ key: 'bar-region', configField: 'foo_region' }] }]),
      /foo_region is declared for both foo-region and bar-region/,
    );
  });
});
