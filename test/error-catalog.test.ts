/** Pins the error catalog: status, type and default code of every constructor, and the OpenAI error shape. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  badGateway,
  badRequest,
  conflict,
  forbidden,
  invalidParam,
  notFound,
  notImplemented,
  requestTimeout,
  storageUnavailable,
  isConnectionFailure,
  unauthorized,
} from '../src/core/errors.ts';

test('every catalog entry has its status, type and code', () => {
  const table = [
    [invalidParam('temperature', 'm'), 400, 'invalid_request_error', 'invalid_value', 'temperature'],
    [badRequest('m'), 400, 'invalid_request_error', 'bad_request', null],
    [unauthorized('m'), 401, 'authentication_error', 'invalid_api_key', null],
    [forbidden('m'), 403, 'permission_error', 'forbidden', null],
    [notFound('m'), 404, 'not_found_error', 'not_found', null],
    [conflict('m'), 409, 'conflict_error', 'conflict', null],
    [requestTimeout(5), 408, 'timeout_error', 'request_timeout', null],
    [badGateway('m'), 502, 'upstream_error', 'bad_upstream_response', null],
    [notImplemented('m'), 501, 'not_implemented_error', 'not_implemented', null],
    [storageUnavailable(), 503, 'server_error', 'storage_unavailable', null],
  ] as const;
  for (const [error, status, type, code, param] of table) {
    assert.equal(error.status, status);
    assert.deepEqual(error.toBody(), { error: { message: error.message, type, param, code } });
  }
});

test('a database that cannot be reached is told apart from a bug', () => {
  assert.equal(isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })), true);
  assert.equal(isConnectionFailure(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isConnectionFailure(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), true);
  assert.equal(isConnectionFailure(new Error('query failed', { cause: Object.assign(new Error('x'), { code: '08006' }) })), true);
  assert.equal(isConnectionFailure(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
  assert.equal(isConnectionFailure(new TypeError('x is undefined')), false);
});
