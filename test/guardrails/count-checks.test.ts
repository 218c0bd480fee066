import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countCharacters, countSentences, countWords } from '../../src/guardrails/checks/counts.ts';
import { makeRegistry, rejects400, runOne } from './helpers.ts';

const registry = makeRegistry();

describe('counting', () => {
  it('words are runs of non-whitespace', () => {
    assert.equal(countWords(''), 0);
    assert.equal(countWords('  one\ttwo\n three  '), 3);
    assert.equal(countWords("don't stop-now"), 2);
  });

  it('sentences end at . ! ? before whitespace or the end; decimals and a trailing fragment behave', () => {
    assert.equal(countSentences(''), 0);
    assert.equal(countSentences('1.5 is a number. Really? Yes!'), 3);
    assert.equal(countSentences('No full stop at the end'), 1);
    assert.equal(countSentences('Wait... what?!'), 2);
    assert.equal(countSentences('...'), 0);
  });

  it('characters are code points', () => {
    assert.equal(countCharacters('abc'), 3);
    assert.equal(countCharacters('👍🏽!'), 3); // two code points for the emoji with its skin tone, then "!"
    assert.equal('👍🏽!'.length, 5);
  });
});

describe('default.wordCount', () => {
  it('passes within [min, max] inclusive, fails outside; not inverts', async () => {
    const cases: Array<[Record<string, unknown>, string, boolean]> = [
      [{ minWords: 2, maxWords: 3 }, 'one two', true],
      [{ minWords: 2, maxWords: 3 }, 'one two three', true],
      [{ minWords: 2, maxWords: 3 }, 'one', false],
      [{ minWords: 2, maxWords: 3 }, 'one two three four', false],
      [{ minWords: 2, maxWords: 3, not: true }, 'one two', false],
      [{ minWords: 2, maxWords: 3, not: true }, 'one', true],
      [{}, 'defaults are 0..99999', true],
      [{ maxWords: 0 }, '', true],
    ];
    for (const [parameters, text, expected] of cases) {
      const verdict = await runOne(registry, 'default.wordCount', parameters, { text });
      assert.equal(verdict.verdict, expected, `${JSON.stringify(parameters)} ${text}: ${verdict.explanation}`);
    }
    const verdict = await runOne(registry, 'default.wordCount', { minWords: 5 }, { text: 'too short' });
    assert.deepEqual(verdict.data, { count: 2, min: 5, max: 99_999 });
    assert.match(verdict.explanation, /2 words, outside 5\.\.99999/);
  });

  it('rejects min above max, negatives and fractions, naming the parameter', async () => {
    await rejects400(runOne(registry, 'default.wordCount', { minWords: 5, maxWords: 2 }), 'checks[0].parameters.maxWords');
    await rejects400(runOne(registry, 'default.wordCount', { minWords: -1 }), 'checks[0].parameters.minWords');
    await rejects400(runOne(registry, 'default.wordCount', { maxWords: 2.5 }), 'checks[0].parameters.maxWords');
    await rejects400(runOne(registry, 'default.wordCount', { minSentences: 1 }), 'checks[0].parameters.minSentences');
  });
});

describe('default.sentenceCount', () => {
  it('passes within range, fails outside; not inverts', async () => {
    const text = 'One. Two! Three?';
    assert.equal((await runOne(registry, 'default.sentenceCount', { minSentences: 1, maxSentences: 3 }, { text })).verdict, true);
    assert.equal((await runOne(registry, 'default.sentenceCount', { maxSentences: 2 }, { text })).verdict, false);
    assert.equal((await runOne(registry, 'default.sentenceCount', { maxSentences: 2, not: true }, { text })).verdict, true);
    assert.equal((await runOne(registry, 'default.sentenceCount', { minSentences: 1, not: true }, { text })).verdict, false);
    await rejects400(runOne(registry, 'default.sentenceCount', { minSentences: 3, maxSentences: 1 }), 'checks[0].parameters.maxSentences');
  });
});

describe('default.characterCount', () => {
  it('passes within range, fails outside; not inverts', async () => {
    const text = 'héllo 👋';
    assert.equal((await runOne(registry, 'default.characterCount', { minCharacters: 7, maxCharacters: 7 }, { text })).verdict, true);
    assert.equal((await runOne(registry, 'default.characterCount', { maxCharacters: 6 }, { text })).verdict, false);
    assert.equal((await runOne(registry, 'default.characterCount', { maxCharacters: 6, not: true }, { text })).verdict, true);
    assert.equal((await runOne(registry, 'default.characterCount', { maxCharacters: 7, not: true }, { text })).verdict, false);
    await rejects400(runOne(registry, 'default.characterCount', { minCharacters: 'ten' }), 'checks[0].parameters.minCharacters');
  });
});
