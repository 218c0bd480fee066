/**
 * Policy matching (src/limits/policy-match.ts), shared by rate limits and usage limits: which requests a policy's
 * conditions take in, the value key its group_by counts them under, and the key vocabulary.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicyMatch, conditionsHold, factValue, isMatchKey, readsProvider, valueKeyOf, type RequestFacts } from '../../src/limits/policy-match.ts';

const ORG = '11111111-1111-4111-8111-111111111111';
const WS = '22222222-2222-4222-8222-222222222222';
const OTHER_WS = '33333333-3333-4333-8333-333333333333';
const KEY = '44444444-4444-4444-8444-444444444444';

const facts = (overrides: Partial<RequestFacts> = {}): RequestFacts => ({
  organisationId: ORG,
  workspaceId: WS,
  apiKeyId: KEY,
  provider: 'openai',
  providerSlug: undefined,
  metadata: { _user: 'ada', tier: 2, beta: true, nested: { a: 1 } },
  ...overrides,
});

test('the key vocabulary: the fixed keys and metadata.<name>; anything else is refused', () => {
  for (const key of ['api_key', 'organisation_id', 'workspace_id', 'provider', 'metadata._user', 'metadata.a b', `metadata.${'x'.repeat(128)}`]) {
    assert.ok(isMatchKey(key), key);
  }
  for (const key of ['', 'metadata.', 'metadata', 'user', 'API_KEY', 'workspace', `metadata.${'x'.repeat(129)}`, 'metadata.a\u0000b']) {
    assert.ok(!isMatchKey(key), key);
  }
});

test('a request\'s values: ids, the provider (a saved provider as @slug), metadata scalars as text, nothing for objects', () => {
  const request = facts();
  assert.equal(factValue('api_key', request), KEY);
  assert.equal(factValue('organisation_id', request), ORG);
  assert.equal(factValue('workspace_id', request), WS);
  assert.equal(factValue('provider', request), 'openai');
  assert.equal(factValue('provider', facts({ providerSlug: 'prod-openai' })), '@prod-openai');
  assert.equal(factValue('metadata._user', request), 'ada');
  assert.equal(factValue('metadata.tier', request), '2');
  assert.equal(factValue('metadata.beta', request), 'true');
  assert.equal(factValue('metadata.nested', request), undefined);
  assert.equal(factValue('metadata.missing', request), undefined);
  assert.equal(factValue('api_key', facts({ apiKeyId: undefined })), undefined, 'a JWT caller has no key id');
});

test('conditions: every key must hold; several values of one key are alternatives; ids in any case', () => {
  assert.ok(conditionsHold([{ key: 'workspace_id', value: WS }], facts()));
  assert.ok(conditionsHold([{ key: 'workspace_id', value: WS.toUpperCase() }], facts()));
  assert.ok(!conditionsHold([{ key: 'workspace_id', value: OTHER_WS }], facts()));
  assert.ok(conditionsHold([{ key: 'workspace_id', value: OTHER_WS }, { key: 'workspace_id', value: WS }], facts()), 'OR within a key');
  assert.ok(!conditionsHold([{ key: 'workspace_id', value: WS }, { key: 'metadata._user', value: 'bob' }], facts()), 'AND across keys');
  assert.ok(conditionsHold([{ key: 'workspace_id', value: WS }, { key: 'metadata._user', value: 'ada' }], facts()));
  assert.ok(!conditionsHold([{ key: 'metadata._user', value: 'ADA' }], facts()), 'metadata compares exactly');
  assert.ok(!conditionsHold([{ key: 'api_key', value: KEY }], facts({ apiKeyId: undefined })));
});

test('a provider condition names the provider or a saved provider\'s slug', () => {
  const saved = facts({ providerSlug: 'prod-openai' });
  assert.ok(conditionsHold([{ key: 'provider', value: 'openai' }], saved));
  assert.ok(conditionsHold([{ key: 'provider', value: '@prod-openai' }], saved));
  assert.ok(conditionsHold([{ key: 'provider', value: 'prod-openai' }], saved));
  assert.ok(!conditionsHold([{ key: 'provider', value: '@other' }], saved));
  assert.ok(!conditionsHold([{ key: 'provider', value: '@openai' }], facts()), '@ names a saved provider only');
  assert.ok(!conditionsHold([{ key: 'provider', value: 'anthropic' }], facts()));
  assert.ok(!conditionsHold([{ key: 'provider', value: 'openai' }], facts({ provider: undefined })));
});

test('the value key: key:value per group_by entry, joined by commas; none when a value is missing', () => {
  assert.equal(valueKeyOf([{ key: 'metadata._user' }], facts()), 'metadata._user:ada');
  assert.equal(valueKeyOf([{ key: 'api_key' }, { key: 'metadata._user' }], facts()), `api_key:${KEY},metadata._user:ada`);
  assert.equal(valueKeyOf([{ key: 'provider' }], facts({ providerSlug: 'p' })), 'provider:@p');
  assert.equal(valueKeyOf([{ key: 'metadata._user' }], facts({ metadata: {} })), undefined);
});

test('a compiled policy: its workspace scope, its conditions, then its value key', () => {
  const perUser = compilePolicyMatch({ workspaceId: null, conditions: [{ key: 'organisation_id', value: ORG }], groupBy: [{ key: 'metadata._user' }] });
  assert.equal(perUser(facts()), 'metadata._user:ada');
  assert.equal(perUser(facts({ workspaceId: OTHER_WS })), 'metadata._user:ada', 'organisation-wide: every workspace');
  assert.equal(perUser(facts({ metadata: {} })), undefined, 'no user: not counted by a per-user policy');
  const scoped = compilePolicyMatch({ workspaceId: WS.toUpperCase(), conditions: [{ key: 'provider', value: 'openai' }], groupBy: [{ key: 'workspace_id' }] });
  assert.equal(scoped(facts()), `workspace_id:${WS}`);
  assert.equal(scoped(facts({ workspaceId: OTHER_WS })), undefined, 'a workspace policy counts its own workspace only');
  assert.equal(scoped(facts({ provider: 'anthropic' })), undefined);
  assert.ok(readsProvider({ conditions: [{ key: 'provider', value: 'openai' }], groupBy: [{ key: 'api_key' }] }));
  assert.ok(readsProvider({ conditions: [{ key: 'api_key', value: KEY }], groupBy: [{ key: 'provider' }] }));
  assert.ok(!readsProvider({ conditions: [{ key: 'api_key', value: KEY }], groupBy: [{ key: 'api_key' }] }));
});
