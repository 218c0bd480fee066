/** The request-log writer with an injected insert and timer: batching by size and time, bounds, close, failures. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequestLogWriter, type DropReason, type RequestLogDeps, type WriterTimers } from '../../src/logging/request-log.ts';
import type { NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';

/** Timers that fire only when the test says so. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timers: WriterTimers = {
    set(callback, ms) {
      next += 1;
      pending.set(next, { callback, ms });
      return next;
    },
    clear: (handle) => pending.delete(handle as number),
  };
  return {
    timers,
    /** delays of the timers armed now */
    armed: () => [...pending.values()].map((timer) => timer.ms),
    fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const timer of due) timer.callback();
    },
  };
}

function row(n: number): NewRequestLogRow {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    organisationId: '00000000-0000-4000-8000-000000000000',
    createdAt: new Date(0),
    traceId: `trace-${n}`,
    route: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    isSuccess: true,
    responseTimeMs: 1,
  };
}

function harness(options: Partial<RequestLogDeps> = {}) {
  const batches: string[][] = [];
  const errors: Array<Record<string, unknown>> = [];
  const drops = new Map<DropReason, number>();
  const clock = manualTimers();
  const writer = createRequestLogWriter({
    insert: async (rows) => {
      batches.push(rows.map((entry) => entry.traceId));
    },
    logger: { error: (details) => errors.push(details) },
    dropped: { inc: ({ reason }, value) => drops.set(reason, (drops.get(reason) ?? 0) + value) },
    timers: clock.timers,
    batchSize: 3,
    flushIntervalMs: 1_000,
    ...options,
  });
  return { writer, batches, errors, drops, clock };
}

/** lets pending promise callbacks run */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('rows wait for the interval, then go out in one INSERT', async () => {
  const { writer, batches, clock } = harness();
  writer.write(row(1));
  writer.write(row(2));
  assert.deepEqual(batches, [], 'nothing is written on the request path');
  assert.deepEqual(clock.armed(), [1_000], 'one timer for the whole batch');
  clock.fire();
  await settle();
  assert.deepEqual(batches, [['trace-1', 'trace-2']]);
  assert.equal(writer.pending, 0);
  assert.deepEqual(clock.armed(), [], 'an idle writer arms no timer');
});

test('a full batch goes out on the next tick, not after the interval; a partial rest waits for the interval', async () => {
  const { writer, batches, clock } = harness();
  for (let n = 1; n <= 3; n += 1) writer.write(row(n));
  assert.deepEqual(clock.armed(), [0]);
  writer.write(row(4));
  assert.deepEqual(clock.armed(), [0], 'further writes do not re-arm');
  clock.fire();
  await settle();
  assert.deepEqual(batches, [['trace-1', 'trace-2', 'trace-3']], 'batches hold batchSize rows');
  assert.deepEqual(clock.armed(), [1_000], 'one row left: it waits for the interval, no one-row INSERT now');
  clock.fire();
  await settle();
  assert.deepEqual(batches, [['trace-1', 'trace-2', 'trace-3'], ['trace-4']]);
});

test('flush() writes everything queued, several batches back to back', async () => {
  const { writer, batches } = harness();
  for (let n = 1; n <= 7; n += 1) writer.write(row(n));
  await writer.flush();
  assert.deepEqual(batches.map((batch) => batch.length), [3, 3, 1]);
  assert.equal(writer.pending, 0);
});

test('a full queue drops its oldest rows and counts them', async () => {
  const { writer, batches, drops } = harness({ batchSize: 2, maxQueue: 3 });
  for (let n = 1; n <= 5; n += 1) writer.write(row(n));
  assert.equal(writer.pending, 3);
  assert.equal(drops.get('queue_full'), 2);
  await writer.flush();
  assert.deepEqual(batches.flat(), ['trace-3', 'trace-4', 'trace-5']);
});

test('close() writes what is queued; later rows are dropped and counted', async () => {
  const { writer, batches, drops, clock } = harness();
  writer.write(row(1));
  await writer.close();
  assert.deepEqual(batches, [['trace-1']]);
  assert.deepEqual(clock.armed(), []);
  writer.write(row(2));
  assert.equal(drops.get('closed'), 1);
  assert.equal(writer.pending, 0);
});

test('while the database is away rows are held, in order, and retried with a growing delay; nothing is lost', async () => {
  let down = true;
  let tries = 0;
  const written: string[] = [];
  const { writer, errors, drops, clock } = harness({
    retryMs: 100,
    maxRetryMs: 400,
    insert: async (rows) => {
      tries += 1;
      if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      written.push(...rows.map((entry) => entry.traceId));
    },
  });
  writer.write(row(1));
  writer.write(row(2));
  await writer.flush();
  assert.equal(writer.holding, true);
  assert.equal(writer.pending, 2, 'the batch went back to the queue');
  assert.deepEqual(clock.armed(), [100], 'a retry is scheduled');
  writer.write(row(3));
  writer.write(row(4));
  assert.deepEqual(clock.armed(), [100], 'writes during the outage only queue');
  clock.fire();
  await settle();
  assert.deepEqual(clock.armed(), [200], 'the delay doubles');
  clock.fire();
  await settle();
  clock.fire();
  await settle();
  assert.deepEqual(clock.armed(), [400], 'up to its ceiling');
  down = false;
  clock.fire();
  await settle();
  await writer.flush();
  assert.deepEqual(written, ['trace-1', 'trace-2', 'trace-3', 'trace-4']);
  assert.equal(writer.holding, false);
  assert.equal(drops.size, 0, 'nothing dropped');
  assert.equal(errors.length, 2, 'one line when the outage starts, one when it ends');
  assert.ok(tries >= 5);
});

test('past the bound during an outage, the oldest rows are dropped, counted and logged', async () => {
  let down = true;
  const written: string[] = [];
  const { writer, errors, drops, clock } = harness({
    batchSize: 2,
    maxQueue: 4,
    insert: async (rows) => {
      if (down) throw new Error('Connection terminated unexpectedly');
      written.push(...rows.map((entry) => entry.traceId));
    },
  });
  writer.write(row(1));
  writer.write(row(2));
  await writer.flush();
  for (let n = 3; n <= 7; n += 1) writer.write(row(n));
  assert.equal(writer.pending, 4);
  assert.equal(drops.get('queue_full'), 3);
  assert.ok(errors.some((entry) => entry.rows === 1 && entry.held === 4), 'the drop is logged');
  down = false;
  clock.fire();
  await settle();
  await writer.flush();
  assert.deepEqual(written, ['trace-4', 'trace-5', 'trace-6', 'trace-7']);
});

test('past the byte bound the oldest rows go, whatever the row count; a batch put back during an outage counts again', async () => {
  let down = false;
  const written: string[] = [];
  // each row weighs its number in bytes: row 5 weighs 5
  const weight = (entry: NewRequestLogRow) => Number(entry.traceId.slice('trace-'.length));
  const released: string[] = [];
  const { writer, drops, clock } = harness({
    batchSize: 3,
    maxBytes: 10,
    sizeOf: weight,
    release: (rows) => released.push(...rows.map((entry) => entry.traceId)),
    insert: async (rows) => {
      if (down) throw new Error('Connection terminated unexpectedly');
      written.push(...rows.map((entry) => entry.traceId));
    },
  });
  writer.write(row(1));
  writer.write(row(2));
  assert.equal(writer.queuedBytes, 3);
  writer.write(row(9)); // 12 bytes: row 1 goes (11), then row 2 (9)
  assert.equal(writer.pending, 1);
  assert.equal(writer.queuedBytes, 9);
  assert.equal(drops.get('queue_full'), 2);
  assert.deepEqual(released, ['trace-1', 'trace-2'], 'dropped rows are released');
  writer.write(row(20)); // heavier than the bound alone: it stays, the others go
  assert.equal(writer.pending, 1);
  assert.equal(writer.queuedBytes, 20);
  await writer.flush();
  assert.deepEqual(written, ['trace-20']);
  assert.equal(writer.queuedBytes, 0);
  // an outage: the batch goes back, rows written meanwhile are weighed with it and the oldest go
  down = true;
  writer.write(row(3));
  writer.write(row(4));
  await writer.flush();
  assert.equal(writer.queuedBytes, 7, 'the batch is counted again when it comes back');
  writer.write(row(5)); // 12: row 3 goes
  assert.equal(writer.queuedBytes, 9);
  down = false;
  clock.fire();
  await settle();
  await writer.flush();
  assert.deepEqual(written, ['trace-20', 'trace-4', 'trace-5']);
  assert.equal(writer.queuedBytes, 0);
});

test('close() during an outage keeps trying until its deadline, then counts what it drops', async () => {
  const { writer, drops } = harness({
    closeTimeoutMs: 0,
    insert: async () => {
      throw new Error('the database system is shutting down');
    },
  });
  writer.write(row(1));
  writer.write(row(2));
  await writer.close();
  assert.equal(drops.get('closed'), 2);
  assert.equal(writer.pending, 0);
});

test('a row the database refuses (a data error) does not take the rest of its batch with it', async () => {
  const written: string[] = [];
  const { writer, errors, drops } = harness({
    insert: async (rows) => {
      if (rows.some((entry) => entry.traceId === 'trace-2')) throw Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
      written.push(...rows.map((entry) => entry.traceId));
    },
  });
  for (let n = 1; n <= 3; n += 1) writer.write(row(n));
  await writer.flush();
  assert.deepEqual(written, ['trace-1', 'trace-3']);
  assert.equal(drops.get('write_failed'), 1);
  assert.equal(errors.length, 1);
});

test('one INSERT at a time: a flush during a flush waits for it, and rows queued meanwhile follow', async () => {
  const releases: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const written: string[] = [];
  const { writer } = harness({
    insert: async (rows) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      written.push(...rows.map((entry) => entry.traceId));
      running -= 1;
    },
  });
  writer.write(row(1));
  const first = writer.flush();
  writer.write(row(2));
  const second = writer.flush();
  assert.equal(first, second, 'the running flush is shared');
  assert.equal(releases.length, 1, 'the second row waits for the first INSERT');
  releases[0]!();
  while (releases.length < 2) await settle();
  releases[1]!();
  await second;
  assert.deepEqual(written, ['trace-1', 'trace-2']);
  assert.equal(most, 1);
});

test('every row is released once, after the last statement that carried it settled: written, refused, dropped or left at close', async () => {
  const released = new Map<string, number>();
  const inFlight = new Set<string>();
  let down = true;
  let gate: Promise<void> | undefined;
  const { writer, drops } = harness({
    batchSize: 2,
    maxQueue: 4,
    closeTimeoutMs: 0,
    insert: async (rows) => {
      const ids = rows.map((entry) => entry.traceId);
      for (const id of ids) inFlight.add(id);
      try {
        if (gate) await gate;
        if (down) throw new Error('connect ECONNREFUSED');
        if (ids.includes('trace-8')) throw Object.assign(new Error('invalid input syntax'), { code: '22P02' });
      } finally {
        for (const id of ids) inFlight.delete(id);
      }
    },
    release: (rows) => {
      for (const entry of rows) {
        assert.ok(!inFlight.has(entry.traceId), `${entry.traceId} released while a statement carrying it runs`);
        released.set(entry.traceId, (released.get(entry.traceId) ?? 0) + 1);
      }
    },
  });
  const releasedIds = () => [...released.keys()].sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));

  writer.write(row(1));
  writer.write(row(2));
  await writer.flush();
  assert.deepEqual(releasedIds(), [], 'rows held during an outage are not released');
  for (let n = 3; n <= 7; n += 1) writer.write(row(n));
  assert.deepEqual(releasedIds(), ['trace-1', 'trace-2', 'trace-3'], 'the oldest rows, dropped for a full queue');

  // a batch that fails while the queue fills up: no room to put it back
  let open!: () => void;
  gate = new Promise<void>((resolve) => (open = resolve));
  const flushing = writer.flush();
  await settle();
  writer.write(row(8));
  writer.write(row(9));
  open();
  gate = undefined;
  await flushing;
  assert.deepEqual(releasedIds(), ['trace-1', 'trace-2', 'trace-3', 'trace-4', 'trace-5'], 'the batch that did not fit back');

  down = false;
  await writer.flush();
  assert.deepEqual(releasedIds(), ['trace-1', 'trace-2', 'trace-3', 'trace-4', 'trace-5', 'trace-6', 'trace-7', 'trace-8', 'trace-9'], 'written, and refused row by row');
  assert.equal(drops.get('write_failed'), 1);

  down = true;
  writer.write(row(10));
  writer.write(row(11));
  await writer.close();
  assert.equal(drops.get('closed'), 2);
  assert.equal(released.size, 11);
  assert.ok([...released.values()].every((count) => count === 1), `each once: ${JSON.stringify([...released])}`);
});

test('GATEWAY_LOG_BUFFER_BYTES: 256 MiB by default, at least 1 MiB, an integer', async () => {
  const { loadConfig } = await import('../../src/config/index.ts');
  assert.equal(loadConfig({}).requestLog.bufferBytes, 256 * 1024 * 1024);
  assert.equal(loadConfig({ GATEWAY_LOG_BUFFER_BYTES: '67108864' }).requestLog.bufferBytes, 64 * 1024 * 1024);
  assert.throws(() => loadConfig({ GATEWAY_LOG_BUFFER_BYTES: '1000' }), /GATEWAY_LOG_BUFFER_BYTES must be an integer of at least 1048576/);
  assert.throws(() => loadConfig({ GATEWAY_LOG_BUFFER_BYTES: '64MB' }), /GATEWAY_LOG_BUFFER_BYTES/);
});
