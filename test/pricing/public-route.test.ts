/**
 * GET /model-configs/pricing/{provider}/{model}: public (no key), outside /v1, the catalog's price as the
 * reference's ModelPricingConfig in USD cents per token; 404 for a model without a known price (in the gateway's
 * error shape), 400 for a malformed path. The answer matches the schema the OpenAPI document publishes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv } from 'ajv';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => gateway.gateway.app.inject({ method: 'GET', url, headers });

test('200 without a key: the catalog\'s prices in cents per token, the fallbacks as charged', async () => {
  const response = await get('/model-configs/pricing/openai/gpt-4o');
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.deepEqual(response.json(), {
    pay_as_you_go: {
      request_token: { price: 0.00025 },
      response_token: { price: 0.001 },
      cache_read_input_token: { price: 0.000125 },
      // OpenAI lists no cache-write price: cache writes are billed as input
      cache_write_input_token: { price: 0.00025 },
      reasoning_token: { price: 0.001 },
    },
    currency: 'USD',
  });
});

test('a model name with slashes, an alias, a rerank priced per search, an embedding model without output price', async () => {
  const together = await get('/model-configs/pricing/together-ai/meta-llama/Llama-3.3-70B-Instruct-Turbo');
  assert.equal(together.statusCode, 200, together.body);
  assert.equal(together.json().pay_as_you_go.request_token.price, 0.000088);
  const alias = await get('/model-configs/pricing/anthropic/claude-sonnet-4-5');
  assert.equal(alias.json().pay_as_you_go.cache_write_input_token.price, 0.000375);
  const rerank = await get('/model-configs/pricing/cohere/rerank-v3.5');
  assert.deepEqual(rerank.json().pay_as_you_go, { additional_units: { search: { price: 0.2 } } });
  const embedding = await get('/model-configs/pricing/openai/text-embedding-3-small');
  assert.deepEqual(Object.keys(embedding.json().pay_as_you_go).sort(), ['cache_read_input_token', 'cache_write_input_token', 'request_token']);
});

test('404 for a model or provider without a known price, in the gateway\'s error shape', async () => {
  for (const url of ['/model-configs/pricing/openai/no-such-model', '/model-configs/pricing/no-such-provider/gpt-4o']) {
    const response = await get(url);
    assert.equal(response.statusCode, 404, response.body);
    const body = response.json();
    assert.equal(body.error.code, 'model_pricing_not_found');
    assert.equal(body.error.type, 'not_found_error');
    assert.match(body.error.message, /No price is known for/);
  }
});

test('400 naming the parameter for a malformed provider or model; the path needs no key but /v1 does', async () => {
  const provider = await get('/model-configs/pricing/Open%20AI/gpt-4o');
  assert.equal(provider.statusCode, 400, provider.body);
  assert.equal(provider.json().error.param, 'provider');
  for (const model of ['', 'x'.repeat(256), 'a%00b', 'tab%09bed']) {
    const response = await get(`/model-configs/pricing/openai/${model}`);
    assert.equal(response.statusCode, 400, `${model.slice(0, 20)}: ${response.body}`);
    assert.equal(response.json().error.param, 'model');
  }
  const keyed = await get('/v1/model-configs/pricing/openai/gpt-4o');
  assert.equal(keyed.statusCode, 401, 'under /v1 the path is not public');
});

test('the document publishes the route at the root server, without security, and its 200 schema fits the answer', async () => {
  const document = (await get('/openapi.json')).json();
  const item = document.paths['/model-configs/pricing/{provider}/{model}'];
  assert.deepEqual(item.servers.map((server: { url: string }) => server.url), ['/']);
  assert.deepEqual(item.get.security, []);
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema({ ...document, $id: 'https://gateway.invalid/openapi.json' });
  const validate = ajv.getSchema('https://gateway.invalid/openapi.json#/components/schemas/ModelPricingConfig')!;
  for (const url of ['/model-configs/pricing/openai/gpt-4o', '/model-configs/pricing/cohere/rerank-v3.5']) {
    assert.ok(validate((await get(url)).json()), JSON.stringify(validate.errors));
  }
});
