/**
 * Bad input is refused with a 400 naming the field or header before anything is forwarded (issue 11): dot segments
 * in a forwarded path or in a value the adapter puts into the upstream path, x-gateway-* headers sent twice or
 * empty, JSON numbers that are not finite, single-valued query parameters given as arrays. Every case checks that the
 * fake upstream, which records every request it gets, received nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { TEST_ADMIN_KEY, startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
let client: Client;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  // a raw client: the path goes on the request line exactly as written (no URL normalisation on our side)
  client = new Client(gateway.origin);
});

after(async () => {
  await client.close();
  await gateway.close();
  await upstream.close();
});

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

function openAiHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': upstream.baseUrl,
    authorization: 'Bearer sk-provider-token',
    ...extra,
  };
}

/** Sends a request with the path as written and headers as a flat [name, value, ...] list (names may repeat). */
async function send(method: string, path: string, headers: string[] | Record<string, string>, body?: string) {
  const response = await client.request({ method: method as 'GET', path, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

function flat(headers: Record<string, string>): string[] {
  return Object.entries(headers).flat();
}

/** A 400 naming `param`, and the upstream received nothing. */
async function refused(method: string, path: string, headers: string[] | Record<string, string>, param: string, body?: string): Promise<ErrorBody['error']> {
  const before = upstream.requests.length;
  const { status, text } = await send(method, path, headers, body);
  assert.equal(status, 400, `${method} ${path} -> ${status} ${text}`);
  const { error } = JSON.parse(text) as ErrorBody;
  assert.equal(error.type, 'invalid_request_error', text);
  assert.equal(error.param, param, `${method} ${path} -> ${text}`);
  assert.deepEqual(upstream.requests.slice(before).map((request) => request.url), [], 'the upstream received nothing');
  return error;
}

describe('dot segments in a forwarded path', () => {
  const traversals = [
    '/v1/files/../../../../etc/passwd',
    '/v1/responses/../../../etc/passwd/input_items',
    '/v1/files/./x',
    '/v1/files/x/.',
    '/v1/files/%2e%2e/%2e%2e/etc/passwd',
    '/v1/files/%2E./%2e%2E/etc/passwd',
    '/v1/files/.%2e/x',
    '/v1/files/%2e/x',
    '/v1/files/..%2f..%2fetc%2fpasswd',
    '/v1/files/..%2F..%2Fetc',
    '/v1/files/%2e%2e%2f%2e%2e%2fetc',
    '/v1/files/..%5c..%5cetc',
    '/v1/files/x%5cy',
    '/v1/files/%252e%252e/%252e%252e/etc/passwd',
    '/v1/files/%252e%252e%252fetc',
    '/v1/files/a%252fb',
    '/v1/files/a%255cb',
    '/v1/files/%25252e%25252e/etc',
    '/v1/models/../../etc/passwd',
    '/v1/models/..%2F..%2Fetc',
    '/v1/files/..?purpose=x',
  ];
  for (const path of traversals) {
    test(`GET ${path} -> 400 path`, async () => {
      await refused('GET', path, openAiHeaders(), 'path');
    });
  }

  test('a raw backslash in the path -> 400, nothing forwarded', async () => {
    // Node's parser may refuse the request line itself; either way it is a 400 and nothing is forwarded
    const before = upstream.requests.length;
    const { status } = await send('GET', '/v1/files/..\\..\\etc', openAiHeaders());
    assert.equal(status, 400);
    assert.equal(upstream.requests.length, before);
  });

  for (const path of ['/v1/proxy/chat/../../../etc/passwd', '/v1/proxy/%2e%2e/%2e%2e/etc/passwd', '/v1/proxy/files/..%2F..%2Fetc', '/v1/proxy/x%5c..%5c..']) {
    test(`${path} -> 400 path`, async () => {
      await refused('POST', path, { ...openAiHeaders(), 'content-type': 'application/json' }, 'path', '{}');
    });
  }

  test('ordinary paths still pass: dots inside names, an encoded slash inside a model name (the openai client sends it)', async () => {
    for (const path of ['/v1/assistants/asst-abc.v2/files', '/v1/models/meta-llama%2FLlama-3.1-8B', '/v1/assistants/..hidden', '/v1/assistants/a..b']) {
      const before = upstream.requests.length;
      const { status, text } = await send('GET', path, openAiHeaders());
      assert.equal(status, 200, `${path} -> ${text}`);
      assert.equal(upstream.requests.length, before + 1);
      assert.equal(upstream.requests.at(-1)!.url, path);
    }
  });
});

describe('dot segments in response ids', () => {
  const cases: Array<[string, string]> = [
    ['GET', '/v1/responses/..'],
    ['GET', '/v1/responses/.'],
    ['GET', '/v1/responses/%2e%2e'],
    ['DELETE', '/v1/responses/%2E%2E'],
    ['GET', '/v1/responses/%2e%2e/input_items'],
    ['GET', '/v1/responses/..%2F..%2Fadmin'],
    ['GET', '/v1/responses/resp_1%2F..%2F..%2Fx/input_items'],
    ['DELETE', '/v1/responses/%252e%252e'],
    ['GET', '/v1/responses/a%5Cb'],
  ];
  for (const [method, path] of cases) {
    test(`${method} ${path} -> 400 response_id`, async () => {
      await refused(method, path, openAiHeaders(), 'response_id');
    });
  }

  test('an ordinary id is forwarded', async () => {
    const { status, text } = await send('GET', '/v1/responses/resp_abc.1/input_items', openAiHeaders());
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.at(-1)!.url, '/v1/responses/resp_abc.1/input_items');
  });
});

describe('a model id with dot segments, for providers that put the model into the URL path', () => {
  const chat = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] });
  const bedrock = (): Record<string, string> => ({
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': upstream.origin,
    'x-gateway-aws-region': 'us-west-2',
    'x-gateway-aws-access-key-id': 'AKIDGATEWAYTEST',
    'x-gateway-aws-secret-access-key': 'secret',
  });

  for (const model of ['../../../etc/passwd', '..', '.', 'x/../../y', '%2e%2e', 'a\\..\\..\\b']) {
    test(`bedrock chat with model ${JSON.stringify(model)} -> 400 model`, async () => {
      await refused('POST', '/v1/chat/completions', bedrock(), 'model', chat(model));
    });
  }

  test('bedrock embeddings with a model climbing out of the path -> 400 model', async () => {
    await refused('POST', '/v1/embeddings', bedrock(), 'model', JSON.stringify({ model: '../../x', input: 'hello' }));
  });

  test('a Bedrock inference-profile ARN (a slash, encoded into the path) still goes through', async () => {
    const before = upstream.requests.length;
    const model = 'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet';
    await send('POST', '/v1/chat/completions', bedrock(), chat(model));
    assert.equal(upstream.requests.length, before + 1);
    assert.match(upstream.requests.at(-1)!.url, /^\/model\/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus\.anthropic\.claude-3-5-sonnet\/converse$/);
  });

  test('google chat with model ../../x -> 400 model', async () => {
    const headers = { 'content-type': 'application/json', 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'google', 'x-gateway-custom-host': `${upstream.origin}/v1beta`, authorization: 'Bearer g-key' };
    await refused('POST', '/v1/chat/completions', headers, 'model', chat('../../x'));
  });

  test('an Azure deployment header with a dot segment -> 400 naming the path, nothing sent', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'azure-openai',
      'x-gateway-custom-host': `${upstream.origin}/openai`,
      'x-gateway-azure-deployment-id': '..',
      authorization: 'Bearer azure-key',
    };
    await refused('POST', '/v1/chat/completions', headers, 'path', chat('gpt-4o'));
  });
});

describe('x-gateway-* headers sent more than once', () => {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
  const twice: Array<[string, string, string]> = [
    ['x-gateway-custom-host', 'http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1'],
    ['x-gateway-provider', 'openai', 'openai'],
    ['x-gateway-request-timeout', '1000', '2000'],
    ['x-gateway-cache-force-refresh', 'true', 'false'],
    ['x-gateway-trace-id', 'a', 'b'],
    ['x-gateway-metadata', '{"a":"1"}', '{"b":"2"}'],
    ['x-gateway-config', '{"retry":{"attempts":1}}', '{"retry":{"attempts":2}}'],
    ['x-gateway-cache-namespace', 'one', 'two'],
    ['authorization', 'Bearer one', 'Bearer two'],
    ['x-gateway-aws-region', 'us-east-1', 'us-west-2'],
    // the gateway key is checked before anything else: two copies are a malformed request, not an unknown key
    ['x-gateway-api-key', TEST_ADMIN_KEY, TEST_ADMIN_KEY],
  ];
  for (const [name, first, second] of twice) {
    test(`${name} twice -> 400 ${name}`, async () => {
      const base = openAiHeaders({ 'content-type': 'application/json' });
      delete base[name];
      await refused('POST', '/v1/chat/completions', [...flat(base), name, first, name, second], name, body);
    });
  }

  test('a JSON header with commas, sent once, is still accepted', async () => {
    const before = upstream.requests.length;
    const { status, text } = await send('POST', '/v1/chat/completions', openAiHeaders({ 'content-type': 'application/json', 'x-gateway-metadata': '{"a":"1","b":"2"}' }), body);
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.length, before + 1);
  });

  test('x-gateway-forward-headers, a list, may be sent twice', async () => {
    const headers = [...flat(openAiHeaders({ 'content-type': 'application/json' })), 'x-gateway-forward-headers', 'x-one', 'x-gateway-forward-headers', 'x-two', 'x-one', '1', 'x-two', '2'];
    const { status, text } = await send('POST', '/v1/chat/completions', headers, body);
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.at(-1)!.headers['x-one'], '1');
    assert.equal(upstream.requests.at(-1)!.headers['x-two'], '2');
  });

  test('the pass-through refuses them too', async () => {
    const base = openAiHeaders();
    delete base['x-gateway-custom-host'];
    await refused('GET', '/v1/files', [...flat(base), 'x-gateway-custom-host', upstream.baseUrl, 'x-gateway-custom-host', upstream.baseUrl], 'x-gateway-custom-host');
  });
});

describe('empty x-gateway-* header values', () => {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
  for (const name of ['x-gateway-metadata', 'x-gateway-request-timeout', 'x-gateway-cache-force-refresh', 'x-gateway-trace-id', 'x-gateway-config', 'x-gateway-forward-headers', 'x-gateway-cache-namespace', 'x-gateway-virtual-key', 'x-gateway-span-id', 'x-gateway-azure-api-version', 'x-gateway-unknown-thing']) {
    test(`${name}: "" -> 400 ${name}`, async () => {
      await refused('POST', '/v1/chat/completions', openAiHeaders({ 'content-type': 'application/json', [name]: '' }), name, body);
    });
  }

  test('a value of spaces only is empty too', async () => {
    await refused('POST', '/v1/chat/completions', openAiHeaders({ 'content-type': 'application/json', 'x-gateway-metadata': '   ' }), 'x-gateway-metadata', body);
  });

  test('on the models route too', async () => {
    await refused('GET', '/v1/models', openAiHeaders({ 'x-gateway-request-timeout': '' }), 'x-gateway-request-timeout');
  });
});

describe('JSON numbers that are not finite', () => {
  const headers = () => openAiHeaders({ 'content-type': 'application/json' });
  test('max_tokens: 1e309 -> 400 max_tokens', async () => {
    await refused('POST', '/v1/chat/completions', headers(), 'max_tokens', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}],"max_tokens":1e309}');
  });

  test('a negative overflow deep in an unknown field -> 400 naming its path', async () => {
    await refused('POST', '/v1/chat/completions', headers(), 'messages[0].x', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi","x":-1E+400}]}');
  });

  test('a 400-digit integer overflows too', async () => {
    await refused('POST', '/v1/chat/completions', headers(), 'metadata.n[1]', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}],"metadata":{"n":[1,${'9'.repeat(400)}]}}`);
  });

  test('rerank top_n: 1e309 -> 400 top_n', async () => {
    const rerank = openAiHeaders({ 'content-type': 'application/json', 'x-gateway-provider': 'jina' });
    await refused('POST', '/v1/rerank', rerank, 'top_n', '{"model":"jina-reranker-v2","query":"q","documents":["a"],"top_n":1e309}');
  });

  test('the pass-through too', async () => {
    await refused('POST', '/v1/batches', headers(), 'limit', '{"limit":1e999}');
  });

  test('a body that is only a number', async () => {
    await refused('POST', '/v1/batches', headers(), 'body', '1e309');
  });

  test('big but finite numbers, and "1e309" inside a string, still pass', async () => {
    const before = upstream.requests.length;
    const { status, text } = await send('POST', '/v1/assistants', headers(), '{"a":1.7976931348623157e308,"b":-1e-400,"c":"1e309","d":[1e308]}');
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.length, before + 1);
  });
});

describe('single-valued query parameters given as arrays', () => {
  for (const [query, param] of [
    ['limit[]=1', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['order=asc&order=desc', 'order'],
    ['order[0]=asc', 'order'],
    ['after=a&after=b', 'after'],
    ['before[]=x', 'before'],
  ]) {
    test(`input_items ?${query} -> 400 ${param}`, async () => {
      await refused('GET', `/v1/responses/resp_1/input_items?${query}`, openAiHeaders(), param!);
    });
  }

  for (const [query, param] of [
    ['limit[]=1', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['provider=openai&provider=anthropic', 'provider'],
    ['ai_service[]=chat', 'ai_service'],
    ['offset=0&offset=1', 'offset'],
    ['sort[]=name', 'sort'],
    ['order=asc&order=desc', 'order'],
  ]) {
    test(`models (catalog) ?${query} -> 400 ${param}`, async () => {
      const { status, text } = await send('GET', `/v1/models?${query}`, { 'x-gateway-api-key': gateway.adminKey });
      assert.equal(status, 400, text);
      assert.equal((JSON.parse(text) as ErrorBody).error.param, param);
    });
    test(`models (provider) ?${query} -> 400 ${param}`, async () => {
      await refused('GET', `/v1/models?${query}`, openAiHeaders(), param!);
    });
  }

  test('a valid query still passes', async () => {
    const { status, text } = await send('GET', '/v1/responses/resp_1/input_items?limit=2&order=desc', openAiHeaders());
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.at(-1)!.url, '/v1/responses/resp_1/input_items?limit=2&order=desc');
  });
});
