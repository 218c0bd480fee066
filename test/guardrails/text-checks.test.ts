import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_REGEX_LENGTH } from '../../src/guardrails/checks/text.ts';
import { makeRegistry, rejects400, runOne } from './helpers.ts';

const registry = makeRegistry();

/** [id, parameters, text, expected verdict] */
type Case = [string, Record<string, unknown>, string, boolean];

async function table(cases: Case[]): Promise<void> {
  for (const [id, parameters, text, expected] of cases) {
    const verdict = await runOne(registry, id, parameters, { text });
    assert.equal(verdict.verdict, expected, `${id} ${JSON.stringify(parameters)} on ${JSON.stringify(text)}: ${verdict.explanation}`);
    assert.ok(verdict.explanation.length > 0);
  }
}

describe('default.regexMatch', () => {
  it('passes on a match, fails without one, and not inverts both', async () => {
    await table([
      ['default.regexMatch', { rule: '\\bticket-\\d+\\b' }, 'see ticket-42 please', true],
      ['default.regexMatch', { rule: '\\bticket-\\d+\\b' }, 'no ticket here', false],
      ['default.regexMatch', { rule: '\\bticket-\\d+\\b', not: true }, 'see ticket-42 please', false],
      ['default.regexMatch', { rule: '\\bticket-\\d+\\b', not: true }, 'no ticket here', true],
      ['default.regexMatch', { rule: '^Answer:' , not: false }, 'Answer: 4', true],
      // no flags: the rule is case-sensitive
      ['default.regexMatch', { rule: 'secret' }, 'SECRET', false],
    ]);
  });

  it('reports where it matched', async () => {
    const verdict = await runOne(registry, 'default.regexMatch', { rule: 'b+' }, { text: 'aabbb' });
    assert.deepEqual(verdict.data, { matched: true, index: 2 });
  });

  it('rejects an invalid or over-long rule and bad parameter types with a 400 naming the parameter', async () => {
    await rejects400(runOne(registry, 'default.regexMatch', { rule: '(unclosed' }), 'checks[0].parameters.rule');
    await rejects400(runOne(registry, 'default.regexMatch', { rule: 'a'.repeat(MAX_REGEX_LENGTH + 1) }), 'checks[0].parameters.rule');
    await rejects400(runOne(registry, 'default.regexMatch', {}), 'checks[0].parameters.rule');
    await rejects400(runOne(registry, 'default.regexMatch', { rule: 'a', not: 'yes' }), 'checks[0].parameters.not');
    await rejects400(runOne(registry, 'default.regexMatch', { rule: 'a', rules: 'b' }), 'checks[0].parameters.rules');
  });
});

describe('default.contains', () => {
  it('any, all and none, matching case-insensitively', async () => {
    const words = ['alpha', 'Beta'];
    await table([
      ['default.contains', { operator: 'any', words }, 'ALPHA only', true],
      ['default.contains', { operator: 'any', words }, 'gamma', false],
      ['default.contains', { operator: 'all', words }, 'alpha and beta', true],
      ['default.contains', { operator: 'all', words }, 'alpha alone', false],
      ['default.contains', { operator: 'none', words }, 'gamma', true],
      ['default.contains', { operator: 'none', words }, 'a beta test', false],
      // the operator defaults to any (api-surface §3.14)
      ['default.contains', { words }, 'beta', true],
    ]);
  });

  it('names what it found and what is missing', async () => {
    const verdict = await runOne(registry, 'default.contains', { operator: 'all', words: ['a1', 'b2'] }, { text: 'a1' });
    assert.deepEqual(verdict.data, { operator: 'all', found: ['a1'], missing: ['b2'] });
    assert.match(verdict.explanation, /lacks "b2"/);
  });

  it('rejects an empty word list, an empty word and an unknown operator', async () => {
    await rejects400(runOne(registry, 'default.contains', { words: [] }), 'checks[0].parameters.words');
    await rejects400(runOne(registry, 'default.contains', { words: ['ok', ''] }), 'checks[0].parameters.words[1]');
    await rejects400(runOne(registry, 'default.contains', { words: ['a'], operator: 'some' }), 'checks[0].parameters.operator');
  });
});

describe('default.endsWith', () => {
  it('ignores trailing whitespace; not inverts', async () => {
    await table([
      ['default.endsWith', { suffix: 'Thanks.' }, 'Done. Thanks.\n', true],
      ['default.endsWith', { suffix: 'Thanks.' }, 'Thanks. Done.', false],
      ['default.endsWith', { suffix: 'Thanks.', not: true }, 'Done. Thanks.', false],
      ['default.endsWith', { suffix: 'Thanks.', not: true }, 'Thanks. Done.', true],
    ]);
    await rejects400(runOne(registry, 'default.endsWith', { suffix: '' }), 'checks[0].parameters.suffix');
  });
});

describe('case checks', () => {
  it('default.isAllLowerCase and its alias default.alllowercase', async () => {
    for (const id of ['default.isAllLowerCase', 'default.alllowercase']) {
      await table([
        [id, {}, 'all lower, 123!', true],
        [id, {}, 'not All lower', false],
        [id, { not: true }, 'all lower', false],
        [id, { not: true }, 'Not lower', true],
        [id, {}, 'straße und café', true],
        [id, {}, 'ÉCOLE', false],
      ]);
    }
  });

  it('default.alluppercase', async () => {
    await table([
      ['default.alluppercase', {}, 'ALL UPPER, 123!', true],
      ['default.alluppercase', {}, 'ALL UPPEr', false],
      ['default.alluppercase', { not: true }, 'ALL UPPER', false],
      ['default.alluppercase', { not: true }, 'Mixed', true],
      ['default.alluppercase', {}, 'STRASSE ÉCOLE', true],
      ['default.alluppercase', {}, 'straße', false],
    ]);
  });

  it('a text without letters passes both', async () => {
    await table([
      ['default.alluppercase', {}, '42 + 7 = 49', true],
      ['default.isAllLowerCase', {}, '42 + 7 = 49', true],
    ]);
  });

  it('accepts missing parameters (every field optional)', async () => {
    const verdict = await runOne(registry, 'default.alluppercase', undefined, { text: 'OK' });
    assert.equal(verdict.verdict, true);
  });
});
