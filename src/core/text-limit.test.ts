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
  assert.equal(new TextLimit().bounded, false);
  assert.equal(limit.bounded, true);
});

test('a piece kept whole or not at all counts against the same limit', () => {
  const limit = new TextLimit(5);
  assert.equal(limit.fits(3), true);
  assert.equal(limit.overflowed, false);
  assert.equal(limit.fits(3), false, 'three more do not fit in the two left');
  assert.equal(limit.overflowed, true);
  assert.equal(limit.admit('xy'), 'xy', 'a piece that did not fit took no room');
  assert.equal(limit.fits(0), true);
  assert.equal(limit.fits(1), false);
  const other = new TextLimit(5);
  other.leaveOut();
  assert.equal(other.overflowed, true);
  assert.equal(other.admit('abcde'), 'abcde', 'leaving out a part takes no room either');
});
