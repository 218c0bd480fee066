/**
 * The x-gateway-* request headers end to end: request timeout (plain and streamed), forwarded client headers,
 * trace id, malformed values, provider selection, and a client that goes away mid-stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, request, type Dispatcher } from 'undici';
import { cloudHeaderPrefixes, parseGatewayHeaders } from '../../src/http/parse-gateway-headers.ts';
import { registeredCloudSettings } from '../../src/providers/registry.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function baseHeaders(): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': upstream.baseUrl,
    authorization: 'Bearer sk-provider-token',
  };
}

function chatBody(model = 'gpt-4o-mini', stream = false): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], ...(stream ? { stream: true } : {}) });
}

async function chat(headers: Record<string, string | undefined>, body = chatBody(), extra: { signal?: AbortSignal; dispatcher?: Dispatcher } = {}) {
  const merged = Object.fromEntries(Object.entries({ ...baseHeaders(), ...headers }).filter(([, value]) => value !== undefined)) as Record<string, string>;
  return request(`${gateway.baseURL}/chat/completions`, { method: 'POST', headers: merged, body, ...extra });
}

async function chatError(headers: Record<string, string | undefined>, body?: string) {
  const response = await chat(headers, body);
  return { status: response.statusCode, headers: response.headers, error: ((await response.body.json()) as ErrorBody).error };
}

describe('x-gateway-request-timeout', () => {
  test('a slow provider is a 408 timeout_error well before it answers, and its connection is aborted', { timeout: 15000 }, async () => {
    const aborted = upstream.aborted;
    const started = performance.now();
    const { status, error } = await chatError({ 'x-gateway-request-timeout': '100' }, chatBody('slow-10000'));
    const elapsed = performance.now() - started;
    assert.equal(status, 408);
    assert.equal(error.type, 'timeout_error');
    assert.match(error.message, /100 ms/);
    // the provider would answer after 10 s; a loaded CI machine still answers the 408 within a few seconds
    assert.ok(elapsed < 5000, `answered after ${Math.round(elapsed)} ms`);
    await upstream.waitForAborted(aborted + 1);
  });

  // The timeout leaves room for the first chunk to arrive on a loaded 2-core machine; the provider then stalls for 10 s.
  test('a stream that outlives the timeout ends with a data-only error event naming the timeout', { timeout: 15000 }, async () => {
    const aborted = upstream.aborted;
    const started = performance.now();
    const response = await chat({ 'x-gateway-request-timeout': '1500' }, chatBody('slow-10000', true));
    const text = await response.body.text();
    assert.ok(performance.now() - started < 5000);
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/event-stream/);
    const events = text.trim().split('\n\n');
    assert.match(events[0]!, /^data: .*chat\.completion\.chunk/, 'the first chunk was relayed');
    const last = events.at(-1)!;
    assert.ok(last.startsWith('data: ') && !last.includes('\nevent:'), last);
    const { error } = JSON.parse(last.slice('data: '.length)) as ErrorBody;
    assert.equal(error.type, 'timeout_error');
    assert.match(error.message, /did not answer within 1500 ms/);
    assert.doesNotMatch(text, /\[DONE\]/);
    await upstream.waitForAborted(aborted + 1);
  });

  test('a value that is not a positive integer is a 400 naming the header', async () => {
    const before = upstream.requests.length;
    for (const value of ['abc', '1.5', '-1', '0', '1e3', '10ms']) {
      const { status, error } = await chatError({ 'x-gateway-request-timeout': value });
      assert.equal(status, 400, value);
      assert.equal(error.param, 'x-gateway-request-timeout', value);
    }
    assert.equal(upstream.requests.length, before);
  });
});

describe('x-gateway-forward-headers', () => {
  const clientHeaders = {
    'x-custom-a': 'alpha',
    'x-custom-b': 'bravo',
    'x-custom-c': 'charlie',
    cookie: 'session=secret',
    'x-gateway-metadata': '{"user":"u-1"}',
    'x-gateway-trace-id': 'trace-forward-1',
  };

  async function forwardedWith(list: string): Promise<Record<string, unknown>> {
    const response = await chat({ ...clientHeaders, 'x-gateway-forward-headers': list });
    await response.body.json();
    assert.equal(response.statusCode, 200);
    return upstream.requests.at(-1)!.headers;
  }

  function custom(headers: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('x-custom-')));
  }

  test('a JSON array forwards exactly the headers it names', async () => {
    const seen = await forwardedWith('["x-custom-a"]');
    assert.deepEqual(custom(seen), { 'x-custom-a': 'alpha' });
    assert.equal(seen.cookie, undefined);
    assert.deepEqual(Object.keys(seen).filter((name) => name.startsWith('x-gateway-')), []);
  });

  test('a comma-separated list forwards exactly the headers it names, whatever their case', async () => {
    const seen = await forwardedWith('X-Custom-A, x-custom-b');
    assert.deepEqual(custom(seen), { 'x-custom-a': 'alpha', 'x-custom-b': 'bravo' });
    assert.equal(seen.cookie, undefined);
    assert.deepEqual(Object.keys(seen).filter((name) => name.startsWith('x-gateway-')), []);
  });

  test('without the header no client header is forwarded', async () => {
    const response = await chat(clientHeaders);
    await response.body.json();
    const seen = upstream.requests.at(-1)!.headers;
    assert.deepEqual(custom(seen), {});
    assert.equal(seen.cookie, undefined);
  });

  test('naming x-gateway-api-key (in any spelling) is a 400, and nothing is sent', async () => {
    const before = upstream.requests.length;
    for (const list of ['["x-gateway-api-key"]', 'x-custom-a, X-Gateway-Api-Key']) {
      const { status, error } = await chatError({ 'x-gateway-forward-headers': list });
      assert.equal(status, 400, list);
      assert.equal(error.param, 'x-gateway-forward-headers');
    }
    assert.equal(upstream.requests.length, before);
  });
});

describe('x-gateway-trace-id', () => {
  test('a given trace id is echoed back and not sent to the provider', async () => {
    const response = await chat({ 'x-gateway-trace-id': 'my-trace-42' });
    await response.body.json();
    assert.equal(response.headers['x-gateway-trace-id'], 'my-trace-42');
    assert.equal(upstream.requests.at(-1)!.headers['x-gateway-trace-id'], undefined);
  });

  test('without one a UUID is generated and returned, a new one per request', async () => {
    const ids: string[] = [];
    for (const stream of [false, false, true]) {
      const response = await chat({}, chatBody('gpt-4o-mini', stream));
      await response.body.text();
      ids.push(String(response.headers['x-gateway-trace-id']));
    }
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('the trace id is on gateway errors raised after the headers are read', async () => {
    const { status, headers } = await chatError({ 'x-gateway-trace-id': 'trace-on-error', 'x-gateway-provider': 'nope' });
    assert.equal(status, 400);
    assert.equal(headers['x-gateway-trace-id'], 'trace-on-error');
  });
});

describe('malformed x-gateway-* headers are a 400 naming the header', () => {
  const cases: Array<[string, string]> = [
    ['x-gateway-metadata', 'not json'],
    ['x-gateway-metadata', '["a","b"]'],
    ['x-gateway-metadata', '"text"'],
    ['x-gateway-cache-force-refresh', 'yes'],
    ['x-gateway-fetch-integrated-models', 'maybe'],
    ['x-gateway-forward-headers', '[1,2]'],
    ['x-gateway-forward-headers', '[not json'],
    ['x-gateway-forward-headers', 'bad header name'],
    ['x-gateway-strict-reference-compliance', '1'],
  ];
  for (const [name, value] of cases) {
    test(`${name}: ${value}`, async () => {
      const before = upstream.requests.length;
      const { status, error } = await chatError({ [name]: value });
      assert.equal(status, 400);
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, name);
      assert.ok(error.message.includes(name), error.message);
      assert.equal(upstream.requests.length, before);
    });
  }

  test('on GET /v1/models too', async () => {
    const response = await request(`${gateway.baseURL}/models`, {
      headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-fetch-integrated-models': 'maybe' },
    });
    const { error } = (await response.body.json()) as ErrorBody;
    assert.equal(response.statusCode, 400);
    assert.equal(error.param, 'x-gateway-fetch-integrated-models');
  });
});

describe('provider selection', () => {
  test('an unknown provider is a 400 naming x-gateway-provider', async () => {
    const { status, error } = await chatError({ 'x-gateway-provider': 'no-such-provider' });
    assert.equal(status, 400);
    assert.equal(error.param, 'x-gateway-provider');
    assert.equal(error.code, 'unknown_provider');
  });

  // saved providers resolve through stored records (test/e2e/provider-slugs.test.ts has the rest)
  const unknownSaved: Array<[string, Record<string, string>, string]> = [
    ['an unknown saved provider (@slug)', { 'x-gateway-provider': '@some-slug' }, 'x-gateway-provider'],
    ['an unknown virtual key', { 'x-gateway-virtual-key': 'vk-123' }, 'x-gateway-virtual-key'],
  ];
  for (const [name, headers, param] of unknownSaved) {
    test(`${name} is a 400 naming ${param}, before any provider call`, async () => {
      const before = upstream.requests.length;
      const { status, error } = await chatError(headers);
      assert.equal(status, 400);
      assert.equal(error.param, param);
      assert.equal(error.code, 'provider_not_found');
      assert.equal(upstream.requests.length, before);
    });
  }

  test('an unknown saved config is a 400 naming x-gateway-config (test/e2e/saved-configs.test.ts has the rest)', async () => {
    const before = upstream.requests.length;
    const { status, error } = await chatError({ 'x-gateway-config': 'pc-saved-123456' });
    assert.equal(status, 400);
    assert.equal(error.param, 'x-gateway-config');
    assert.equal(error.code, 'config_not_found');
    assert.equal(upstream.requests.length, before);
  });

  test('an invalid inline config is a 400 naming the path inside it', async () => {
    const { status, error } = await chatError({ 'x-gateway-config': '{"strategy":{"mode":"fallback"}}' });
    assert.equal(status, 400);
    assert.equal(error.param, 'config.targets');
  });

  test('vllm without a custom host is a 400 naming x-gateway-custom-host', async () => {
    const { status, error } = await chatError({ 'x-gateway-provider': 'vllm', 'x-gateway-custom-host': undefined });
    assert.equal(status, 400);
    assert.equal(error.param, 'x-gateway-custom-host');
    assert.equal(error.code, 'custom_host_required');
  });
});

describe('cloud settings: the x-gateway-* prefixes the adapters declare', () => {
  test('a header under a declared prefix is collected by its suffix, and no other', () => {
    const parsing = { newTraceId: () => 'trace', cloudHeaderPrefixes: cloudHeaderPrefixes([{ headerPrefix: 'x-gateway-foo-', settings: [] }]) };
    const parsed = parseGatewayHeaders({ 'x-gateway-foo-region': ' eu-1 ', 'x-gateway-foo-anything': 'a', 'x-gateway-bar-region': 'b', 'x-gateway-provider': 'p' }, parsing);
    assert.deepEqual(parsed.cloud, { 'foo-region': 'eu-1', 'foo-anything': 'a' });
  });

  test('each prefix once, whatever the number of adapters that share it', () => {
    const shared = { headerPrefix: 'x-gateway-foo-', settings: [] };
    assert.deepEqual(cloudHeaderPrefixes([shared, shared, { headerPrefix: 'x-gateway-bar-', settings: [] }]), ['x-gateway-foo-', 'x-gateway-bar-']);
  });

  test('the registered adapters declare the prefixes the gateway has always read', () => {
    // and OpenAI's organization and project (x-gateway-openai-organization, -project), as the reference names them
    assert.deepEqual(cloudHeaderPrefixes(registeredCloudSettings()).sort(), ['x-gateway-aws-', 'x-gateway-azure-', 'x-gateway-openai-', 'x-gateway-vertex-']);
  });
});

describe('client disconnect', () => {
  test('a client that goes away mid-stream closes the provider connection', { timeout: 5000 }, async () => {
    // its own Agent: after an abort undici reconnects eagerly, and that idle spare connection would hold app.close()
    // until the server's headers timeout
    const agent = new Agent();
    try {
      const aborted = upstream.aborted;
      const controller = new AbortController();
      const response = await chat({}, chatBody('slow-2000', true), { signal: controller.signal, dispatcher: agent });
      assert.equal(response.statusCode, 200);
      response.body.on('error', () => {});
      const first = await response.body[Symbol.asyncIterator]().next();
      assert.match(Buffer.from(first.value as Buffer).toString(), /chat\.completion\.chunk/);
      controller.abort();
      await upstream.waitForAborted(aborted + 1);
    } finally {
      await agent.destroy();
    }
    // the gateway is still serving
    const next = await chat({});
    assert.equal(next.statusCode, 200);
    await next.body.json();
  });
});

test('the provider never saw x-gateway-api-key (nor any x-gateway-* header) in this file', () => {
  assert.ok(upstream.requests.length > 5);
  for (const seen of upstream.requests) {
    assert.equal(seen.headers['x-gateway-api-key'], undefined);
    assert.deepEqual(Object.keys(seen.headers).filter((name) => name.startsWith('x-gateway-')), []);
  }
});
