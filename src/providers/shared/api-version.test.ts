import assert from 'node:assert/strict';
import { test } from 'node:test';
import { namesVersion, withVersion, withoutVersion } from './api-version.ts';

test('a base names a version when its last path segment is v<digits>, optionally alpha/beta<digits>', () => {
  for (const base of ['https://a.example/v1', 'https://a.example/v2', 'https://a.example/v1beta', 'https://a.example/v1beta1', 'https://a.example/v1alpha', 'https://a.example/proxy/v1beta3']) {
    assert.equal(namesVersion(base), true, base);
  }
  for (const base of ['https://a.example', 'http://v1', 'https://v1.example', 'https://a.example/google', 'https://a.example/v1/projects', 'https://a.example/v1beta-proxy', 'https://a.example/version1', 'https://a.example/V1', 'https://a.example/v1gamma']) {
    assert.equal(namesVersion(base), false, base);
  }
});

test('withVersion appends the version unless one is named; withoutVersion drops a named one', () => {
  assert.equal(withVersion('https://a.example', 'v1beta'), 'https://a.example/v1beta');
  assert.equal(withVersion('https://a.example/google', 'v1beta'), 'https://a.example/google/v1beta');
  assert.equal(withVersion('https://a.example/v1', 'v1beta'), 'https://a.example/v1');
  assert.equal(withoutVersion('https://a.example/v1'), 'https://a.example');
  assert.equal(withoutVersion('https://a.example/cohere/v2'), 'https://a.example/cohere');
  assert.equal(withoutVersion('https://a.example/cohere'), 'https://a.example/cohere');
  assert.equal(withoutVersion('https://a.example'), 'https://a.example');
});
