/**
 * Request validation over HTTP: every invalid case of the shared table is a 400 in the OpenAI error shape naming
 * the field, answered without contacting the provider; every valid body reaches the provider byte for byte.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { validationCases, validBodies, type ValidationRoute } from '../fixtures/validation-cases.ts';
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

const PATHS: Record<ValidationRoute, string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  rerank: '/rerank',
};

function headersFor(route: ValidationRoute): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': route === 'rerank' ? 'jina' : 'openai',
    'x-gateway-custom-host': upstream.baseUrl,
    authorization: 'Bearer sk-provider-token',
  };
}

async function post(route: ValidationRoute, body: string, headers: Record<string, string> = headersFor(route)) {
  const response = await request(`${gateway.baseURL}${PATHS[route]}`, { method: 'POST', headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

function assertErrorShape(text: string): ErrorBody['error'] {
  const parsed = JSON.parse(text) as ErrorBody;
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.deepEqual(Object.keys(parsed.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(typeof parsed.error.message, 'string');
  assert.ok(parsed.error.message.length > 0);
  assert.equal(parsed.error.type, 'invalid_request_error');
  return parsed.error;
}

describe('invalid bodies: 400 naming the field, the provider never contacted', () => {
  for (const c of validationCases) {
    test(`${c.route}: ${c.name} -> 400 ${c.param}`, async () => {
      const before = upstream.requests.length;
      const { status, text } = await post(c.route, JSON.stringify(c.body));
      assert.equal(status, 400, text);
      const error = assertErrorShape(text);
      assert.equal(error.param, c.param);
      assert.equal(upstream.requests.length, before, 'no request reached the provider');
    });
  }

  test('the provider saw no connection at all for the invalid cases', () => {
    assert.equal(upstream.connections, 0);
    assert.equal(upstream.requests.length, 0);
  });
});

describe('bodies that are not a JSON object', () => {
  test('invalid JSON is a 400 naming body', async () => {
    for (const route of ['chat', 'completions', 'embeddings', 'rerank'] as const) {
      const { status, text } = await post(route, '{"model": "gpt-4o-mini", "messages": [');
      assert.equal(status, 400, text);
      assert.equal(assertErrorShape(text).param, 'body');
    }
  });

  test('a JSON array is a 400 naming body', async () => {
    const { status, text } = await post('chat', JSON.stringify([{ model: 'gpt-4o-mini', messages: [] }]));
    assert.equal(status, 400, text);
    assert.equal(assertErrorShape(text).param, 'body');
  });

  test('JSON scalars are a 400 naming body', async () => {
    for (const body of ['"hello"', '42', 'null', 'true']) {
      const { status, text } = await post('embeddings', body);
      assert.equal(status, 400, `${body}: ${text}`);
      assert.equal(assertErrorShape(text).param, 'body');
    }
  });

  test('an empty body with content-type application/json is a 400', async () => {
    const { status, text } = await post('chat', '');
    assert.equal(status, 400, text);
    assert.equal(assertErrorShape(text).param, 'body');
  });

  test('none of them reached the provider', () => {
    assert.equal(upstream.connections, 0);
    assert.equal(upstream.requests.length, 0);
  });
});

describe('valid bodies: accepted and forwarded unchanged', () => {
  for (const v of validBodies) {
    test(`${v.route}: ${v.name}`, async () => {
      const sent = JSON.stringify(v.body);
      const before = upstream.requests.length;
      const { status, headers, text } = await post(v.route, sent);
      assert.equal(status, 200, text);
      if (v.body.stream === true) {
        assert.match(String(headers['content-type']), /text\/event-stream/);
        assert.ok(text.trimEnd().endsWith('data: [DONE]'), text);
      } else {
        JSON.parse(text);
      }
      assert.equal(upstream.requests.length, before + 1, 'exactly one upstream request');
      const seen = upstream.requests.at(-1)!;
      assert.equal(seen.method, 'POST');
      assert.equal(seen.url, `/v1${PATHS[v.route]}`);
      assert.equal(seen.body, sent, 'the body bytes are unchanged');
      assert.deepEqual(seen.json, JSON.parse(sent));
    });
  }

  test('a body in another JSON media type (application/vnd+json) is parsed and forwarded too', async () => {
    const sent = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    const { status, text } = await post('chat', sent, { ...headersFor('chat'), 'content-type': 'application/merge-patch+json' });
    assert.equal(status, 200, text);
    assert.equal(upstream.requests.at(-1)?.body, sent);
  });
});
