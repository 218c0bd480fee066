/**
 * The body schemas are compiled on first use, not when their modules load (core/schemas/compile-on-first-use.ts):
 * loading the whole gateway compiles none, and every one of them still compiles.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { compileAllNow, compileOnFirstUse, compileRemaining, pendingValidators } from '../src/core/schemas/compile-on-first-use.ts';

test('loading the gateway compiles no body schema; each compiles when asked', async () => {
  const before = pendingValidators();
  await import('../src/gateway.ts');
  const loaded = pendingValidators() - before;
  // the inference routes', the Messages API's, every admin group's and the routing config's
  assert.ok(loaded >= 60, `the gateway's schemas wait to be compiled (${loaded})`);
  compileAllNow(); // throws on a schema Ajv cannot compile
  assert.equal(pendingValidators(), 0);
});

test('a validator compiles once, on its first call, and compileRemaining compiles the rest between turns', async () => {
  const ajv = new Ajv();
  let compiles = 0;
  const original = ajv.compile.bind(ajv);
  ajv.compile = ((schema: object) => {
    compiles += 1;
    return original(schema);
  }) as typeof ajv.compile;
  const first = compileOnFirstUse<number>(ajv, { type: 'integer' });
  const second = compileOnFirstUse<string>(ajv, { type: 'string' });
  assert.equal(compiles, 0);
  assert.equal(first()(3), true);
  assert.equal(first()('x'), false);
  assert.equal(compiles, 1);
  assert.equal(pendingValidators(), 1);

  // compileRemaining yields to the event loop between schemas: an immediate queued before it runs first
  const order: string[] = [];
  setImmediate(() => order.push('request'));
  await compileRemaining().then(() => order.push('compiled'));
  assert.deepEqual(order, ['request', 'compiled']);
  assert.equal(compiles, 2);
  assert.equal(second()('x'), true);
  assert.equal(compiles, 2);
  assert.equal(pendingValidators(), 0);
});

test('a schema Ajv cannot compile fails on each use; compileRemaining reports it and goes on', async () => {
  const get = compileOnFirstUse(new Ajv(), { type: 'no-such-type' });
  const good = compileOnFirstUse<boolean>(new Ajv(), { type: 'boolean' });
  assert.throws(() => get(), /type/);
  assert.throws(() => get(), /type/);
  assert.equal(pendingValidators(), 2);
  const failed = await compileRemaining();
  assert.equal(failed.length, 1);
  assert.match(failed[0]!.message, /type/);
  assert.equal(pendingValidators(), 0);
  assert.equal(good()(true), true);
  assert.throws(() => get(), /type/); // still refused on use, never taken as valid
});
