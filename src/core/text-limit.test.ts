import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextLimit } from './text-limit.ts';

test('text is let in up to the limit in all, the piece that crosses it cut, what comes after left out', () => {
  const limit = new TextLimit(5);
  assert.equal(limit.admit('ab'), 'ab');
  assert.equal(limit.admit('cd'), 'cd');
  assert.equal(limit.overflowed, false);
  assert.equal(limit.admit('efg'), 'e');
  assert.equal(limit.overflowed, true);
  assert.equal(limit.admit('h'), '');
  assert.equal(new TextLimit().admit('x'.repeat(1e6)).length, 1e6, 'no limit by default');
});
