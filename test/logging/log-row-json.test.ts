/** A request-log row's JSON text, as the batch INSERT takes it: absent values left out, plain defaults written. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serialiseRequestLogRow, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';

const base = {
  id: '00000000-0000-4000-8000-000000000001',
  organisationId: '00000000-0000-4000-8000-000000000002',
  createdAt: new Date('2026-11-25T07:00:00.000Z'),
  route: 'chat',
  status: 200,
  isSuccess: true,
} as NewRequestLogRow;

test('values keep their JSON types; absent ones are left out; plain defaults are written', () => {
  const row = { ...base, requestBody: 'a "quoted"\nbody', responseTimeMs: 12, cost: '0.000162', attempts: [{ path: 'request' }] } as NewRequestLogRow;
  const json = JSON.parse(serialiseRequestLogRow(row).toString()) as Record<string, unknown>;
  assert.equal(json.id, base.id);
  assert.equal(json.created_at, '2026-11-25T07:00:00.000Z');
  assert.equal(json.request_body, 'a "quoted"\nbody');
  assert.equal(json.response_time_ms, 12);
  assert.equal(json.is_success, true);
  assert.equal(json.cost, '0.000162');
  assert.deepEqual(json.attempts, [{ path: 'request' }]);
  assert.ok(!('model' in json) && !('user_id' in json), 'a column without a value is left out');
  assert.equal(json.stream_mode, false, 'a plain default is written: json_populate_recordset would give null');
  assert.equal(json.bodies_truncated, false);
});

test('a number or a date that JSON cannot hold is null, as JSON.stringify writes it', () => {
  const json = JSON.parse(serialiseRequestLogRow({ ...base, responseTimeMs: Number.NaN, createdAt: new Date(Number.NaN) } as NewRequestLogRow).toString()) as Record<string, unknown>;
  assert.equal(json.response_time_ms, null);
  assert.equal(json.created_at, null);
});
