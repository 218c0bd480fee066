/** The conditional-routing query language: every operator, paths, and/or, missing values, type mismatches, checks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import { checkQuery, matchesQuery, type ConditionInput, type Query } from '../../src/routing/conditions.ts';
import { MAX_REGEX_LENGTH } from '../../src/routing/safe-regex.ts';

const input: ConditionInput = {
  metadata: { user_plan: 'pro', region: 'eu', tier: 3, beta: true, tags: ['a', 'b'], org: { id: 'o-1' } },
  params: {
    model: 'gpt-4o-mini',
    temperature: 0.2,
    max_tokens: 512,
    a: { b: { c: 'deep' } },
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }],
    stop: null,
  },
};

/** Checks the query as parseConfig would, then evaluates it. */
function matches(query: Query): boolean {
  checkQuery(query, 'q');
  return matchesQuery(query, input);
}

test('implicit equality on metadata and params, including nested paths and array indexes', () => {
  assert.equal(matches({ 'metadata.user_plan': 'pro' }), true);
  assert.equal(matches({ 'metadata.user_plan': 'free' }), false);
  assert.equal(matches({ 'params.model': 'gpt-4o-mini' }), true);
  assert.equal(matches({ 'params.a.b.c': 'deep' }), true);
  assert.equal(matches({ 'metadata.org.id': 'o-1' }), true);
  assert.equal(matches({ 'params.messages.1.role': 'user' }), true);
  assert.equal(matches({ 'params.messages.x.role': 'user' }), false);
  assert.equal(matches({ 'params.stop': null }), true);
  assert.equal(matches({ 'metadata.tags': ['a', 'b'] }), true, 'arrays compare whole');
  assert.equal(matches({ 'metadata.tags': 'a' }), false, 'an array is not searched element by element');
  assert.equal(matches({ 'metadata.org': { id: 'o-1' } }), true, 'a literal object compares deeply');
  assert.equal(matches({ 'metadata.org': { id: 'o-1', x: 1 } }), false);
});

test('several keys, and several operators on one field, must all match', () => {
  assert.equal(matches({ 'metadata.user_plan': 'pro', 'metadata.region': 'eu' }), true);
  assert.equal(matches({ 'metadata.user_plan': 'pro', 'metadata.region': 'us' }), false);
  assert.equal(matches({ 'params.max_tokens': { $gte: 100, $lt: 1000 } }), true);
  assert.equal(matches({ 'params.max_tokens': { $gte: 100, $lt: 500 } }), false);
  assert.equal(matches({}), true, 'an empty query matches everything');
});

test('$eq and $ne', () => {
  assert.equal(matches({ 'metadata.tier': { $eq: 3 } }), true);
  assert.equal(matches({ 'metadata.tier': { $eq: '3' } }), false, 'no coercion between types');
  assert.equal(matches({ 'metadata.beta': { $ne: false } }), true);
  assert.equal(matches({ 'metadata.region': { $ne: 'eu' } }), false);
  assert.equal(matches({ 'metadata.org': { $eq: { id: 'o-1' } } }), true);
});

test('$in and $nin', () => {
  assert.equal(matches({ 'params.model': { $in: ['gpt-4o', 'gpt-4o-mini'] } }), true);
  assert.equal(matches({ 'params.model': { $in: ['claude'] } }), false);
  assert.equal(matches({ 'params.model': { $in: [] } }), false);
  assert.equal(matches({ 'params.model': { $nin: ['claude'] } }), true);
  assert.equal(matches({ 'params.model': { $nin: ['gpt-4o-mini'] } }), false);
  assert.equal(matches({ 'metadata.tier': { $in: [1, 2, 3] } }), true);
});

test('$regex, with $options', () => {
  assert.equal(matches({ 'params.model': { $regex: '^gpt-4o' } }), true);
  assert.equal(matches({ 'params.model': { $regex: '^claude' } }), false);
  assert.equal(matches({ 'params.model': { $regex: '^GPT' } }), false);
  assert.equal(matches({ 'params.model': { $regex: '^GPT', $options: 'i' } }), true);
  assert.equal(matches({ 'metadata.tier': { $regex: '3' } }), false, 'only strings match a regex');
  assert.equal(matches({ 'params.messages.0.content': { $regex: '(\\d{3}-)+' } }), false);
});

test('$gt $gte $lt $lte on numbers and strings', () => {
  assert.equal(matches({ 'params.temperature': { $gt: 0.1 } }), true);
  assert.equal(matches({ 'params.temperature': { $gt: 0.2 } }), false);
  assert.equal(matches({ 'params.temperature': { $gte: 0.2 } }), true);
  assert.equal(matches({ 'params.max_tokens': { $lt: 512 } }), false);
  assert.equal(matches({ 'params.max_tokens': { $lte: 512 } }), true);
  assert.equal(matches({ 'metadata.region': { $gt: 'de', $lt: 'fr' } }), true, 'strings compare in code-unit order');
});

test('type mismatches never match a comparison', () => {
  assert.equal(matches({ 'metadata.tier': { $gt: '2' } }), false);
  assert.equal(matches({ 'metadata.region': { $lt: 100 } }), false);
  assert.equal(matches({ 'metadata.tags': { $gte: 0 } }), false);
  assert.equal(matches({ 'params.stop': { $lte: 0 } }), false);
});

test('a missing path equals nothing, so only $ne and $nin match it', () => {
  const missing = 'metadata.nope.deeper';
  assert.equal(matches({ [missing]: 'x' }), false);
  assert.equal(matches({ [missing]: null }), false, 'missing is not null');
  assert.equal(matches({ [missing]: { $eq: null } }), false);
  assert.equal(matches({ [missing]: { $in: [null] } }), false);
  assert.equal(matches({ [missing]: { $regex: '.*' } }), false);
  assert.equal(matches({ [missing]: { $gt: 0 } }), false);
  assert.equal(matches({ [missing]: { $ne: 'x' } }), true);
  assert.equal(matches({ [missing]: { $nin: ['x'] } }), true);
  assert.equal(matches({ 'params.model.length': 11 }), false, 'strings have no properties');
  assert.equal(matches({ 'params.constructor': { $ne: 'x' } }), true, 'inherited properties are missing');
  assert.equal(matchesQuery({ 'params.model': 'x' }, { metadata: {}, params: undefined }), false);
});

test('$and and $or, nested', () => {
  const pro = { 'metadata.user_plan': 'pro' };
  const free = { 'metadata.user_plan': 'free' };
  const eu = { 'metadata.region': 'eu' };
  assert.equal(matches({ $or: [free, pro] }), true);
  assert.equal(matches({ $or: [free, { 'metadata.region': 'us' }] }), false);
  assert.equal(matches({ $and: [pro, eu] }), true);
  assert.equal(matches({ $and: [pro, free] }), false);
  assert.equal(matches({ $or: [free, { $and: [pro, eu, { 'params.max_tokens': { $gt: 100 } }] }] }), true);
  assert.equal(matches({ $and: [{ $or: [free, pro] }, { $or: [{ 'params.model': 'x' }, eu] }] }), true);
  assert.equal(matches({ $or: [pro], 'metadata.region': 'us' }), false, 'a logical key and a field key are and-ed');
});

test('checkQuery names the path of every invalid part', () => {
  const cases: Array<[unknown, string, string?]> = [
    ['x', 'q', 'must be an object'],
    [[], 'q', 'must be an object'],
    [{ $foo: 1 }, 'q.$foo', 'not a supported operator'],
    [{ $not: { 'metadata.a': 1 } }, 'q.$not'],
    [{ 'metadata.a': { $foo: 1 } }, 'q.metadata.a.$foo', 'not a supported operator'],
    [{ 'metadata.a': { $eq: 1, plain: 2 } }, 'q.metadata.a.plain', 'cannot be mixed'],
    [{ 'metadata.a': { $in: 'x' } }, 'q.metadata.a.$in', 'must be an array'],
    [{ 'metadata.a': { $nin: {} } }, 'q.metadata.a.$nin', 'must be an array'],
    [{ 'metadata.a': { $gt: {} } }, 'q.metadata.a.$gt', 'number or a string'],
    [{ 'metadata.a': { $lte: null } }, 'q.metadata.a.$lte'],
    [{ 'metadata.a': { $regex: 5 } }, 'q.metadata.a.$regex', 'must be a string'],
    [{ 'metadata.a': { $regex: '[' } }, 'q.metadata.a.$regex', 'not a valid regular expression'],
    [{ 'metadata.a': { $regex: 'a'.repeat(MAX_REGEX_LENGTH + 1) } }, 'q.metadata.a.$regex', 'at most 500'],
    [{ 'metadata.a': { $regex: '^(a+)+$' } }, 'q.metadata.a.$regex', 'exponential'],
    [{ 'metadata.a': { $regex: '(\\w*\\s?)*x' } }, 'q.metadata.a.$regex', 'exponential'],
    [{ 'metadata.a': { $regex: '((ab){2,})*' } }, 'q.metadata.a.$regex'],
    [{ 'metadata.a': { $regex: 'x', $options: 'g' } }, 'q.metadata.a.$options', 'i, m and s'],
    [{ 'metadata.a': { $regex: 'x', $options: 1 } }, 'q.metadata.a.$options', 'must be a string'],
    [{ 'metadata.a': { $options: 'i' } }, 'q.metadata.a.$options', 'together with $regex'],
    [{ user_plan: 'pro' }, 'q.user_plan', 'must start with metadata or params'],
    [{ 'headers.x': 'pro' }, 'q.headers.x'],
    [{ 'metadata..a': 1 }, 'q.metadata..a'],
    [{ $or: [] }, 'q.$or', 'non-empty array'],
    [{ $and: {} }, 'q.$and'],
    [{ $or: [{ 'metadata.a': 1 }, { $and: [{ 'params.b': { $bad: 1 } }] }] }, 'q.$or[1].$and[0].params.b.$bad'],
    [{ $or: ['x'] }, 'q.$or[0]', 'must be an object'],
  ];
  for (const [query, param, part] of cases) {
    assert.throws(
      () => checkQuery(query, 'q'),
      (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.status, 400);
        assert.equal(error.param, param, `${JSON.stringify(query)}: ${error.message}`);
        assert.ok(error.message.startsWith(param));
        if (part) assert.ok(error.message.includes(part), `"${error.message}" includes "${part}"`);
        return true;
      },
    );
  }
});

test('safe patterns pass the regex guard', () => {
  for (const pattern of ['^gpt-4', '(\\d{3}-)+', '[a+]+', '\\(a+\\)+', '(a+)?b', '(?:ab)+c', 'a{2,}b+', 'x'.repeat(MAX_REGEX_LENGTH)]) {
    assert.doesNotThrow(() => checkQuery({ 'params.model': { $regex: pattern } }, 'q'), pattern);
  }
});
