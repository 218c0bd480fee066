import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cacheKey, canonicalJson } from '../../src/cache/cache-key.ts';

const body = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
  ],
  temperature: 0,
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } }],
};
const base = { provider: 'openai', route: 'chat/completions', body, namespace: 'team-a' };

describe('canonicalJson', () => {
  test('sorts object keys at every depth, keeps array order, drops undefined members', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null, e: undefined } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  });
});

describe('cacheKey', () => {
  test('is the SHA-256 hex of the canonical material, stable across calls', () => {
    assert.match(cacheKey(base), /^[0-9a-f]{64}$/);
    assert.equal(cacheKey(base), cacheKey(structuredClone(base)));
  });

  test('key order does not matter, at any depth', () => {
    const reordered = {
      tools: [{ function: { parameters: { properties: { a: { type: 'string' } }, type: 'object' }, name: 'f' }, type: 'function' }],
      temperature: 0,
      messages: [
        { content: 'Be brief.', role: 'system' },
        { content: [{ text: 'Hi', type: 'text' }], role: 'user' },
      ],
      model: 'gpt-4o-mini',
    };
    assert.equal(cacheKey({ ...base, body: reordered }), cacheKey(base));
  });

  test('stream, stream_options and user do not matter: streaming and non-streaming requests share an entry', () => {
    const streaming = { ...body, stream: true, stream_options: { include_usage: true }, user: 'u-42' };
    assert.equal(cacheKey({ ...base, body: streaming }), cacheKey(base));
    assert.equal(cacheKey({ ...base, body: { ...body, stream: false } }), cacheKey(base));
  });

  test('the namespace matters; absent and empty are one namespace', () => {
    assert.notEqual(cacheKey({ ...base, namespace: 'team-b' }), cacheKey(base));
    assert.equal(cacheKey({ ...base, namespace: undefined }), cacheKey({ ...base, namespace: '' }));
    assert.notEqual(cacheKey({ ...base, namespace: undefined }), cacheKey(base));
  });

  test('the model matters', () => {
    assert.notEqual(cacheKey({ ...base, body: { ...body, model: 'gpt-4o' } }), cacheKey(base));
  });

  test('provider, route and every answer-changing param matter', () => {
    const key = cacheKey(base);
    assert.notEqual(cacheKey({ ...base, provider: 'azure-openai' }), key);
    assert.notEqual(cacheKey({ ...base, route: 'completions' }), key);
    assert.notEqual(cacheKey({ ...base, body: { ...body, temperature: 0.7 } }), key);
    assert.notEqual(cacheKey({ ...base, body: { ...body, tools: [] } }), key);
    assert.notEqual(cacheKey({ ...base, body: { ...body, messages: [...body.messages].reverse() } }), key);
    assert.notEqual(cacheKey({ ...base, body: { ...body, max_tokens: 5 } }), key);
  });

  test('field values cannot be confused with the key material around them', () => {
    const a = cacheKey({ provider: 'p', route: 'r', body: { model: 'm', x: '","provider":"q' } });
    const b = cacheKey({ provider: 'q', route: 'r', body: { model: 'm', x: '' } });
    assert.notEqual(a, b);
  });
});
