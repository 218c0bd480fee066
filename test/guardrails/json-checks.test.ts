import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchema } from '../../src/guardrails/checks/json.ts';
import { makeRegistry, rejects400, runOne } from './helpers.ts';

const registry = makeRegistry();

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, email: { type: 'string', format: 'email' } },
  required: ['name', 'age'],
};

describe('default.jsonSchema', () => {
  it('validates context.json; not inverts', async () => {
    const good = { name: 'Ada', age: 36 };
    const bad = { name: 'Ada', age: -1 };
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: PERSON }, { json: good })).verdict, true);
    const failed = await runOne(registry, 'default.jsonSchema', { schema: PERSON }, { json: bad });
    assert.equal(failed.verdict, false);
    assert.match(failed.explanation, /\/age must be >= 0/);
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: PERSON, not: true }, { json: good })).verdict, false);
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: PERSON, not: true }, { json: bad })).verdict, true);
  });

  it('falls back to the text: the whole text, then a ```json block', async () => {
    const plain = await runOne(registry, 'default.jsonSchema', { schema: PERSON }, { text: ' {"name":"Ada","age":36} ' });
    assert.equal(plain.verdict, true);
    const fenced = await runOne(registry, 'default.jsonSchema', { schema: PERSON }, {
      text: 'Here you go:\n```json\n{"name":"Ada","age":36}\n```\nAnything else?',
    });
    assert.equal(fenced.verdict, true);
  });

  it('fails on text that is not JSON, with or without not', async () => {
    for (const not of [false, true]) {
      const verdict = await runOne(registry, 'default.jsonSchema', { schema: PERSON, not }, { text: 'just prose' });
      assert.equal(verdict.verdict, false);
      assert.equal(verdict.explanation, 'The text is not JSON.');
    }
  });

  it('checks the formats it knows (email)', async () => {
    const verdict = await runOne(registry, 'default.jsonSchema', { schema: PERSON }, { json: { name: 'A', age: 1, email: 'nope' } });
    assert.equal(verdict.verdict, false);
  });

  it('rejects an invalid schema with a 400 on parameters.schema', async () => {
    await rejects400(runOne(registry, 'default.jsonSchema', { schema: { type: 'nope' } }), 'checks[0].parameters.schema');
    await rejects400(runOne(registry, 'default.jsonSchema', { schema: { $ref: 'https://example.com/remote.json' } }), 'checks[0].parameters.schema');
    await rejects400(runOne(registry, 'default.jsonSchema', { schema: 'string' }), 'checks[0].parameters.schema');
  });

  it('caches compiled schemas by content, and schemas sharing an $id do not collide', async () => {
    assert.equal(compileSchema({ type: 'string' }), compileSchema({ type: 'string' }));
    const a = { $id: 'https://example.com/shared', type: 'string' };
    const b = { $id: 'https://example.com/shared', type: 'number' };
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: a }, { json: 'x' })).verdict, true);
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: b }, { json: 1 })).verdict, true);
    assert.equal((await runOne(registry, 'default.jsonSchema', { schema: b }, { json: 'x' })).verdict, false);
  });
});

describe('default.jsonKeys', () => {
  const json = { id: 1, name: 'x' };
  it('any, all and none of the top-level keys', async () => {
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ keys: ['id', 'missing'], operator: 'any' }, true],
      [{ keys: ['missing'], operator: 'any' }, false],
      [{ keys: ['id', 'name'], operator: 'all' }, true],
      [{ keys: ['id', 'missing'], operator: 'all' }, false],
      [{ keys: ['missing'], operator: 'none' }, true],
      [{ keys: ['name'], operator: 'none' }, false],
      [{ keys: ['id'] }, true], // operator defaults to any
    ];
    for (const [parameters, expected] of cases) {
      const verdict = await runOne(registry, 'default.jsonKeys', parameters, { json });
      assert.equal(verdict.verdict, expected, `${JSON.stringify(parameters)}: ${verdict.explanation}`);
    }
  });

  it('fails on JSON that is not an object, and on non-JSON', async () => {
    assert.equal((await runOne(registry, 'default.jsonKeys', { keys: ['0'] }, { json: ['a'] })).verdict, false);
    assert.equal((await runOne(registry, 'default.jsonKeys', { keys: ['a'] }, { text: 'prose' })).verdict, false);
    await rejects400(runOne(registry, 'default.jsonKeys', { keys: [] }), 'checks[0].parameters.keys');
  });
});
