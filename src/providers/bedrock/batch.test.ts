/** Bedrock batch inputs: OpenAI JSONL lines -> `{recordId, modelInput}` with Claude's InvokeModel body; statuses back. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import { batchStatusOf, toBedrockBatchInput, toBedrockBatchRecord } from './batch.ts';

const line = (body: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ custom_id: 'req-1', method: 'POST', url: '/v1/chat/completions', body, ...extra });

test('a chat line becomes a record whose modelInput is the Anthropic Messages body for Bedrock', () => {
  const record = toBedrockBatchRecord(line({ model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', max_tokens: 50, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] }), 1);
  assert.equal(record.recordId, 'req-1');
  assert.equal(record.modelInput.anthropic_version, 'bedrock-2023-05-31');
  assert.equal(record.modelInput.max_tokens, 50);
  assert.equal(record.modelInput.system, 'Be brief.');
  assert.deepEqual(record.modelInput.messages, [{ role: 'user', content: 'hi' }]);
  assert.ok(!('model' in record.modelInput), 'the model is the job\'s, not the record\'s');
});

test('a whole JSONL input, blank lines skipped; errors name the line and field', () => {
  const input = `${JSON.stringify(line({ model: 'us.anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'a' }] }))}\n\n${JSON.stringify(line({ model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'b' }] }, { custom_id: 'req-2' }))}\n`;
  const records = toBedrockBatchInput(input).trim().split('\n').map((text) => JSON.parse(text) as { recordId: string });
  assert.deepEqual(records.map((record) => record.recordId), ['req-1', 'req-2']);
  const cases: Array<[string, string]> = [
    ['not json', 'input line 1'],
    [JSON.stringify(line({ model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [] }, { url: '/v1/embeddings' })), 'input line 1.url'],
    [JSON.stringify(line({ model: 'meta.llama3-8b-instruct-v1:0', messages: [] })), 'input line 1.body.model'],
    [JSON.stringify({ url: '/v1/chat/completions', body: {} }), 'input line 1.custom_id'],
  ];
  for (const [text, param] of cases) {
    assert.throws(() => toBedrockBatchInput(text), (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === param, param);
  }
});

test('Bedrock job statuses map onto OpenAI\'s batch statuses', () => {
  assert.deepEqual(['Submitted', 'InProgress', 'Completed', 'PartiallyCompleted', 'Failed', 'Stopping', 'Stopped', 'Expired'].map(batchStatusOf), ['validating', 'in_progress', 'completed', 'completed', 'failed', 'cancelling', 'cancelled', 'expired']);
});
