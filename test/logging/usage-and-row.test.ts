/** Usage read from answers, stored text and stream tails; a record turned into its row (client gone, verdicts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/core/context.ts';
import { logRow, type RowInputs } from '../../src/logging/log-row.ts';
import { newRequestRecord, noteErrorBody, noteOutputVerdicts } from '../../src/logging/request-record.ts';
import { STREAM_TAIL_BYTES, streamTailText, usageInText, usageOf } from '../../src/logging/usage.ts';

test('usageOf: chat and Responses API names; unknown counts stay undefined, never 0', () => {
  assert.deepEqual(usageOf({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }), { prompt: 5, completion: 2, total: 7 });
  assert.deepEqual(usageOf({ input_tokens: 5, output_tokens: 2 }), { prompt: 5, completion: 2, total: 7 });
  assert.deepEqual(usageOf({ prompt_tokens: 3, total_tokens: 3 }), { prompt: 3, completion: undefined, total: 3 });
  assert.equal(usageOf({ search_units: 1 }), undefined);
  assert.equal(usageOf(null), undefined);
  assert.equal(usageOf({ prompt_tokens: -1, completion_tokens: 'x' }), undefined);
});

test('usageInText: the last usage object, skipping nulls and the word inside strings', () => {
  const chunks = [
    'data: {"choices":[{"delta":{"content":"the \\"usage\\": {\\"total_tokens\\": 99}"}}],"usage":null}\n\n',
    'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":0}}}\n\n',
    'data: [DONE]\n\n',
  ];
  assert.deepEqual(usageInText(chunks.join('')), { prompt: 5, completion: 2, total: 7, cached: 0 });
  assert.equal(usageInText(chunks[0]!), undefined);
  assert.equal(usageInText('{"usage": {"prompt_tokens": 5'), undefined, 'a cut-off object is no usage');
});

test('streamTailText: the usage chunk split across the last two reads; only the tail is read', () => {
  const text = 'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}\n\ndata: [DONE]\n\n';
  const bytes = Buffer.from(text);
  assert.equal(streamTailText(bytes.subarray(0, 40), bytes.subarray(40)), text);
  assert.deepEqual(usageInText(streamTailText(bytes.subarray(0, 40), bytes.subarray(40))!), { prompt: 5, completion: 2, total: 7 });
  assert.deepEqual(usageInText(streamTailText(undefined, bytes)!), { prompt: 5, completion: 2, total: 7 });
  const long = Buffer.concat([Buffer.from(`data: ${'x'.repeat(10_000)}\n\n`), bytes]);
  const tail = streamTailText(undefined, long)!;
  assert.equal(tail.length, STREAM_TAIL_BYTES, 'only the tail is read');
  assert.deepEqual(usageInText(tail), { prompt: 5, completion: 2, total: 7 });
  assert.equal(streamTailText(bytes, undefined), undefined, 'nothing read: no tail');
});

const principal: Principal = {
  kind: 'jwt',
  keyId: 'jti-not-a-uuid',
  keyHash: 'h',
  keyType: 'workspace',
  subType: 'user',
  organisationId: '00000000-0000-4000-8000-000000000001',
  workspaceId: '00000000-0000-4000-8000-000000000002',
  scopes: [],
  orgRole: null,
  workspaceRole: 'member',
  userId: '00000000-0000-4000-8000-000000000003',
  expiresAt: null,
};

function inputs(overrides: Partial<RowInputs>): RowInputs {
  return {
    id: '00000000-0000-4000-8000-0000000000aa',
    record: newRequestRecord(1_000, 'chat'),
    principal,
    gateway: undefined,
    fallbackTraceId: 'generated',
    method: 'POST',
    url: '/v1/chat/completions?api-version=1',
    requestBody: { model: 'm', stream: true },
    rawBody: undefined,
    requestHeaders: {},
    responseHeaders: {},
    headersToMask: [],
    bodyCap: 1024,
    status: 200,
    completed: true,
    headersSent: true,
    endedAt: 1_250,
    ...overrides,
  };
}

test('a row: the caller, no query string, the request model, stream mode, the time taken; a JWT has no API key id', () => {
  const row = logRow(inputs({}));
  assert.equal(row.apiKeyId, null);
  assert.equal(row.userId, principal.userId);
  assert.equal(row.path, '/v1/chat/completions');
  assert.equal(row.traceId, 'generated');
  assert.equal(row.model, 'm');
  assert.equal(row.streamMode, true);
  assert.equal(row.responseTimeMs, 250);
  assert.equal(row.isSuccess, true);
  assert.equal(row.hookResults, null);
});

test('a client that left: 499 before any answer; mid-stream, the status sent and the error', () => {
  const before = logRow(inputs({ completed: false, headersSent: false }));
  assert.equal(before.status, 499);
  assert.equal(before.isSuccess, false);
  assert.equal((before.error as { code: string }).code, 'client_closed_request');
  const during = logRow(inputs({ completed: false, headersSent: true }));
  assert.equal(during.status, 200);
  assert.equal(during.isSuccess, false);
});

test('a stream that ended with an error event is no success; verdicts keep both phases', () => {
  const record = newRequestRecord(0, 'chat');
  noteOutputVerdicts(record, [{ id: 'h', verdict: false, deny: true, checks: [] }]);
  noteErrorBody(record, { error: { message: 'denied', type: 'guardrail_error', code: 'output_guardrail_denied' }, hook_results: { after_request_hooks: [{ id: 'other' }] } });
  const row = logRow(inputs({ record }));
  assert.equal(row.status, 200);
  assert.equal(row.isSuccess, false);
  assert.deepEqual(row.error, { message: 'denied', type: 'guardrail_error', code: 'output_guardrail_denied' });
  assert.deepEqual(row.hookResults, { before_request_hooks: [], after_request_hooks: [{ id: 'h', verdict: false, deny: true, checks: [] }] });
});
