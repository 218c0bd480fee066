import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainTextDocuments, rerankList, rerankResults, type RerankAnswerShape } from './rerank.ts';
import { droppedParameter } from './warnings.ts';

const shape: RerankAnswerShape = { list: 'results', score: 'score', document: (_result, sent) => ({ text: String(sent) }) };

test('results are sorted by relevance, keep the sent index, and carry a document only when asked', () => {
  const answer = { results: [{ index: 0, score: 0.1 }, { index: 1, score: 0.9 }] };
  const asked = rerankResults(answer, { documents: ['a', 'b'], return_documents: true }, shape);
  assert.deepEqual(asked.results, [
    { index: 1, relevance_score: 0.9, document: { text: 'b' } },
    { index: 0, relevance_score: 0.1, document: { text: 'a' } },
  ]);
  const plain = rerankResults(answer, { documents: ['a', 'b'] }, shape);
  assert.deepEqual(plain.results, [{ index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.1 }]);
});

test('an answer without its list, or a result without index or score, is malformed (the core answers 502)', () => {
  assert.throws(() => rerankResults({ data: [] }, {}, shape), /rerank answer has no results array/);
  assert.throws(() => rerankResults({ results: [{ index: 0 }] }, {}, shape), /without index or score/);
  assert.throws(() => rerankResults({ results: [null] }, {}, shape), /without index or score/);
});

test('plain-text rankers get the texts, and a warning when object fields are dropped', () => {
  assert.deepEqual(plainTextDocuments({ documents: ['a', { text: 'b' }] }, 'p', 'P'), { documents: ['a', 'b'], warnings: [] });
  assert.deepEqual(plainTextDocuments({ documents: [{ text: 'b', title: 't' }] }, 'p', 'P'), {
    documents: ['b'],
    warnings: ['p: document fields other than text not supported (P ranks plain text); dropped'],
  });
});

test('the list leaves out an id or usage the provider did not give', () => {
  assert.deepEqual(rerankList({ id: 7, model: 'm', provider: 'p', results: [], usage: undefined }), { object: 'list', model: 'm', provider: 'p', results: [] });
  assert.deepEqual(rerankList({ id: 'r', model: 'm', provider: 'p', results: [], usage: { search_units: 1 } }), {
    object: 'list', id: 'r', model: 'm', provider: 'p', results: [], usage: { search_units: 1 },
  });
});

test('a dropped parameter reads the same for every provider, in printable ASCII', () => {
  assert.equal(droppedParameter('p', 'seed'), 'p: seed not supported; dropped');
  assert.equal(droppedParameter('p', 'caf\u00e9\n'), 'p: caf?? not supported; dropped');
});
