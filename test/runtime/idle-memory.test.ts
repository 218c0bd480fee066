/**
 * The heap given back when the process goes idle after work (src/runtime/idle-memory.ts): only after a busy period,
 * only once the process has stayed under 1% of a core for the whole idle time, once per busy period; and the real
 * collection runs without leaving `gc` exposed to the rest of the process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullCollection, releaseMemoryWhenIdle } from '../../src/runtime/idle-memory.ts';

test('collected after a busy period and a quiet idleMs, once; not while busy, not without work before', async (t) => {
  t.mock.timers.enable({ apis: ['Date', 'setInterval'] });
  let cpu = 0;
  let collections = 0;
  // performance.now() is not mocked: the policy's clock is injected through the samples' times instead
  const clock = { now: 0 };
  const originalNow = performance.now.bind(performance);
  performance.now = () => clock.now;
  try {
    const policy = releaseMemoryWhenIdle({ idleMs: 30_000, busyCpuUs: 2_000_000, cpuUs: () => cpu, collect: () => (collections += 1) });
    const at = (ms: number, cpuUs: number) => {
      clock.now = ms;
      cpu = cpuUs;
      policy.check();
    };
    // quiet from the start, no work: nothing to give back
    at(0, 0);
    at(40_000, 1_000);
    assert.equal(collections, 0);
    // busy (3 s of CPU), then quiet for 30 s: one collection
    at(50_000, 3_001_000);
    at(70_000, 3_050_000);
    assert.equal(collections, 0, 'not before the idle time');
    at(80_000, 3_100_000);
    assert.equal(collections, 1);
    at(120_000, 3_150_000);
    assert.equal(collections, 1, 'once per busy period');
    // busy again, but the last 30 s used 1% of a core or more: not idle
    at(130_000, 6_000_000);
    at(160_000, 6_300_000);
    assert.equal(collections, 1, '300 ms in 30 s is 1%');
    at(200_000, 6_310_000);
    assert.equal(collections, 2);
    policy.stop();
  } finally {
    performance.now = originalNow;
  }
});

test('the real collection runs, gives back what it can, and leaves no gc function behind', () => {
  const collect = fullCollection();
  let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, index) => ({ index, text: `row ${index}` }));
  assert.equal(garbage.length, 200_000);
  garbage = undefined;
  const before = process.memoryUsage().heapUsed;
  collect();
  assert.ok(process.memoryUsage().heapUsed < before, 'the collection freed the garbage');
  assert.equal((globalThis as { gc?: unknown }).gc, undefined);
});
