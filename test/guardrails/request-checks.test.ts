import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeRegistry, rejects400, runOne } from './helpers.ts';

const registry = makeRegistry();

describe('default.modelWhitelist', () => {
  const models = ['gpt-4o', 'claude-sonnet-4'];
  it('passes a listed model, fails another; not turns the list into a block list', async () => {
    assert.equal((await runOne(registry, 'default.modelWhitelist', { models }, { model: 'gpt-4o' })).verdict, true);
    assert.equal((await runOne(registry, 'default.modelWhitelist', { models }, { model: 'gpt-4o-mini' })).verdict, false);
    assert.equal((await runOne(registry, 'default.modelWhitelist', { models }, { model: 'GPT-4O' })).verdict, false);
    assert.equal((await runOne(registry, 'default.modelWhitelist', { models, not: true }, { model: 'gpt-4o' })).verdict, false);
    assert.equal((await runOne(registry, 'default.modelWhitelist', { models, not: true }, { model: 'gpt-4o-mini' })).verdict, true);
  });

  it('fails closed without a model, with or without not', async () => {
    for (const not of [false, true]) {
      const verdict = await runOne(registry, 'default.modelWhitelist', { models, not }, { model: undefined });
      assert.equal(verdict.verdict, false);
    }
    await rejects400(runOne(registry, 'default.modelWhitelist', { models: [] }), 'checks[0].parameters.models');
    await rejects400(runOne(registry, 'default.modelWhitelist', {}), 'checks[0].parameters.models');
  });
});

describe('default.allowedRequestTypes', () => {
  it('allows listed types, refuses others and blocked ones; blocked wins over allowed', async () => {
    const cases: Array<[Record<string, unknown>, string, boolean]> = [
      [{ allowedTypes: ['chatComplete', 'embed'] }, 'chat', true],
      [{ allowedTypes: ['chatComplete', 'embed'] }, 'embeddings', true],
      [{ allowedTypes: ['chatComplete'] }, 'rerank', false],
      [{ blockedTypes: ['imageGenerate'] }, 'imageGenerate', false],
      [{ blockedTypes: ['imageGenerate'] }, 'chat', true],
      [{ allowedTypes: ['chat', 'embed'], blockedTypes: ['chatComplete'] }, 'chat', false],
      // either vocabulary on either side
      [{ allowedTypes: ['completions'] }, 'complete', true],
      [{ blockedTypes: ['proxy'] }, 'passthrough', false],
    ];
    for (const [parameters, requestType, expected] of cases) {
      const verdict = await runOne(registry, 'default.allowedRequestTypes', parameters, { requestType: requestType as 'chat' });
      assert.equal(verdict.verdict, expected, `${JSON.stringify(parameters)} on ${requestType}: ${verdict.explanation}`);
    }
  });

  it('needs at least one list, and only known request types', async () => {
    await rejects400(runOne(registry, 'default.allowedRequestTypes', {}), 'checks[0].parameters.allowedTypes');
    await rejects400(runOne(registry, 'default.allowedRequestTypes', { allowedTypes: ['chat', 'teleport'] }), 'checks[0].parameters.allowedTypes[1]');
  });
});

describe('default.requiredMetadataKeys', () => {
  it('all (the default), any and none', async () => {
    const metadata = { team: 'a', env: 'prod' };
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ metadataKeys: ['team', 'env'] }, true],
      [{ metadataKeys: ['team', 'user'] }, false],
      [{ metadataKeys: ['team', 'user'], operator: 'any' }, true],
      [{ metadataKeys: ['user'], operator: 'any' }, false],
      [{ metadataKeys: ['user'], operator: 'none' }, true],
      [{ metadataKeys: ['env'], operator: 'none' }, false],
    ];
    for (const [parameters, expected] of cases) {
      assert.equal((await runOne(registry, 'default.requiredMetadataKeys', parameters, { metadata })).verdict, expected);
    }
  });
});
