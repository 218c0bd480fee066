/** The log's maintenance schedule: partitions first (a start waits for them), then the statistics, in the background. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scheduleLogMaintenance, type LogStore } from '../../src/logging/log-store.ts';

function fakeStore(calls: string[], analyzing: Promise<string[]>): LogStore {
  return {
    prepare: () => { throw new Error('not used'); },
    insert: async () => {},
    release: () => {},
    async maintain() {
      calls.push('maintain');
      return { skipped: [], dropped: [] };
    },
    async analyze() {
      calls.push('analyze');
      return analyzing;
    },
  };
}

test('a start waits for the partitions, not for the statistics, which follow each maintenance run', async () => {
  const calls: string[] = [];
  let finish!: (days: string[]) => void;
  const analyzing = new Promise<string[]>((resolve) => (finish = resolve));
  const schedule = scheduleLogMaintenance(fakeStore(calls, analyzing), { everyMs: 3_600_000, onError: (error) => assert.fail(String(error)) });
  try {
    // ready has resolved while the analysis it started is still running (`analyzing` is settled only below)
    await schedule.ready;
    assert.deepEqual(calls, ['maintain', 'analyze'], 'the statistics after the partitions, not awaited by ready');
    finish([]);
  } finally {
    schedule.stop();
  }
});

test('a failed analysis is reported, never thrown', async () => {
  const errors: unknown[] = [];
  const failing = Promise.reject(new Error('analyze failed'));
  failing.catch(() => {});
  const schedule = scheduleLogMaintenance(fakeStore([], failing), { onError: (error) => errors.push(error) });
  try {
    await schedule.ready;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((errors[0] as Error).message, 'analyze failed');
  } finally {
    schedule.stop();
  }
});
