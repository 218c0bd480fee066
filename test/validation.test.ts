import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError, isGatewayError } from '../src/core/errors.ts';
import {
  parseInputItemsQuery,
  validateChatCompletion,
  validateCompletion,
  validateEmbedding,
  validateRerank,
} from '../src/http/schemas/validate.ts';
import { validationCases, validBodies, type ValidationRoute } from './fixtures/validation-cases.ts';

const validators: Record<ValidationRoute, (body: unknown) => unknown> = {
  chat: validateChatCompletion,
  completions: validateCompletion,
  embeddings: validateEmbedding,
  rerank: validateRerank,
};

function rejection(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    assert.ok(isGatewayError(err), `expected a GatewayError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to throw');
}

describe('request validation: invalid bodies', () => {
  for (const c of validationCases) {
    it(`${c.route}: ${c.name} -> 400 ${c.param}`, () => {
      const before = structuredClone(c.body);
      const err = rejection(() => validators[c.route](c.body));
      assert.equal(err.status, 400);
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.param, c.param);
      assert.ok(err.message.includes(c.param), `message names the field: ${err.message}`);
      assert.deepEqual(c.body, before, 'body not mutated');
    });
  }

  it('every route has cases', () => {
    for (const route of Object.keys(validators)) {
      assert.ok(validationCases.some((c) => c.route === route), route);
    }
  });
});

describe('request validation: valid bodies', () => {
  for (const v of validBodies) {
    it(`${v.route}: ${v.name}`, () => {
      const before = structuredClone(v.body);
      const result = validators[v.route](v.body);
      assert.equal(result, v.body, 'same object returned');
      assert.deepEqual(v.body, before, 'body not mutated');
    });
  }
});

describe('request validation: non-object bodies', () => {
  for (const body of [null, undefined, [], [{}], 'text', 42, true]) {
    it(`rejects ${JSON.stringify(body) ?? 'undefined'} with param body`, () => {
      for (const validate of Object.values(validators)) {
        const err = rejection(() => validate(body));
        assert.equal(err.status, 400);
        assert.equal(err.param, 'body');
      }
    });
  }
});

describe('request validation: messages', () => {
  const chat = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
  const message = (fields: Record<string, unknown>) => rejection(() => validateChatCompletion({ ...chat, ...fields })).message;

  it('names the field and the rule', () => {
    assert.equal(message({ temperature: 2.1 }), 'temperature must be between 0 and 2');
    assert.equal(message({ temperature: 'hot' }), 'temperature must be a number or null');
    assert.equal(message({ logit_bias: { '50256': 101 } }), 'logit_bias.50256 must be between -100 and 100');
    assert.equal(message({ max_tokens: -1 }), 'max_tokens must be greater than or equal to 0');
    assert.equal(message({ stop: ['a', 'b', 'c', 'd', 'e'] }), 'stop must have at most 4 items');
    assert.equal(message({ functions: [] }), 'functions must have between 1 and 128 items');
    assert.equal(message({ tools: [{ type: 'x', function: { name: 'f' } }] }), "tools[0].type must be 'function'");
    assert.equal(message({ messages: [{}] }), 'messages[0].role is required');
    assert.equal(message({ model: '' }), 'model must not be empty');
    assert.match(message({ messages: [{ role: 'bot' }] }), /^messages\[0\]\.role must be one of 'system', /);
    assert.equal(message({ tool_choice: 'x' }), "tool_choice must be 'none', 'auto', 'required', or an object");
    assert.equal(message({ top_logprobs: 1 }), 'top_logprobs is only allowed when logprobs is true');
  });

  it('describes unions when no branch matches', () => {
    const err = rejection(() => validateCompletion({ model: 'm', prompt: { text: 'x' } }));
    assert.equal(
      err.message,
      'prompt must be a string, an array of strings, an array of integers, or an array of arrays of integers',
    );
  });

  it('keeps keys with pointer-special characters in the param', () => {
    const err = rejection(() => validateChatCompletion({ ...chat, logit_bias: { 'a/b~c%zz': 101 } }));
    assert.equal(err.param, 'logit_bias.a/b~c%zz');
  });
});

describe('parseInputItemsQuery', () => {
  it('defaults to limit 20, order asc', () => {
    assert.deepEqual(parseInputItemsQuery({}), { limit: 20, order: 'asc' });
  });

  it('parses valid values and ignores unknown keys', () => {
    assert.deepEqual(parseInputItemsQuery({ limit: '1', order: 'desc', after: 'item_1', extra: 'x' }), {
      limit: 1,
      order: 'desc',
      after: 'item_1',
    });
    assert.deepEqual(parseInputItemsQuery({ limit: '100', before: 'item_9' }), {
      limit: 100,
      order: 'asc',
      before: 'item_9',
    });
    assert.equal(parseInputItemsQuery({ limit: 50 }).limit, 50);
  });

  for (const limit of ['0', '101', 'abc', '1.5', '', '-1', ' 5', '1e1', '+5', '99999999999999999999', ['1', '2'], 0, 2.5]) {
    it(`rejects limit ${JSON.stringify(limit)}`, () => {
      const err = rejection(() => parseInputItemsQuery({ limit }));
      assert.equal(err.status, 400);
      assert.equal(err.param, 'limit');
    });
  }

  for (const order of ['sideways', 'ASC', '', ['asc']]) {
    it(`rejects order ${JSON.stringify(order)}`, () => {
      const err = rejection(() => parseInputItemsQuery({ order }));
      assert.equal(err.status, 400);
      assert.equal(err.param, 'order');
    });
  }

  it('rejects empty or repeated cursors', () => {
    assert.equal(rejection(() => parseInputItemsQuery({ after: '' })).param, 'after');
    assert.equal(rejection(() => parseInputItemsQuery({ before: ['a', 'b'] })).param, 'before');
  });
});
