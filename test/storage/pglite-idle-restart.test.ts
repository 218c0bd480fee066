/**
 * The embedded database's thread restarted on the same files (pglite-worker/client.ts `restart`) and the policy that
 * does it when the gateway is idle (idle-restart.ts): what was written stays, calls made around a restart all run in
 * order (a transaction is never cut), named prepared statements are prepared again on the new connection, the
 * session is new, and a restart happens only after enough calls and enough idle time, one at a time.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startPgliteWorker, type PgliteThreadClient } from '../../src/storage/pglite-worker/client.ts';
import { restartWhenIdle } from '../../src/storage/pglite-worker/idle-restart.ts';

let dir: string;
let client: PgliteThreadClient;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-idle-restart-'));
  client = await startPgliteWorker({ dataDir: dir, postgresqlconf: 'shared_buffers = 8MB' });
  await client.exec('create table notes (id int primary key, note text)');
});

after(async () => {
  await client?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rows = async (sql: string) => ((await client.query(sql)) as { rows: Array<Record<string, unknown>> }).rows;
const insert = { name: 'insert_note', text: 'insert into notes (id, note) select (e->>0)::int, e->>1 from json_array_elements($1::json) e', parameterTypes: [114] };

test('a restart keeps what was written, runs the calls around it in order, and opens a new session', async () => {
  await client.execPrepared(insert, [Buffer.from('[[1, "before"]]')]);
  await client.exec('create temp table session_only (x int)');
  assert.ok(client.activity().calls >= 3);

  // a transaction under way, a restart, and calls made while both wait: each in its turn
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const transaction = client.transaction(async (tx) => {
    await tx.query("insert into notes (id, note) values (2, 'in the transaction')");
    await held;
    await tx.query("insert into notes (id, note) values (3, 'still in it')");
    order.push('transaction');
  });
  const restart = client.restart().then(() => order.push('restart'));
  const after = client.execPrepared(insert, [Buffer.from('[[4, "after"]]')]).then(() => order.push('prepared after'));
  release();
  await Promise.all([transaction, restart, after]);
  assert.deepEqual(order, ['transaction', 'restart', 'prepared after']);

  assert.deepEqual((await rows('select id, note from notes order by id')).map((row) => row.id), [1, 2, 3, 4]);
  // the temporary table was the old session's
  await assert.rejects(client.query('select * from session_only'), (error: unknown) => (error as { code?: string }).code === '42P01');
  assert.ok(client.activity().calls < 10, 'the calls are counted from the restart');
});

test('after a restart the database is still the same files: a second restart and a fresh client see every row', async () => {
  await client.restart();
  await client.execPrepared(insert, [Buffer.from('[[5, "again"]]')]);
  await client.close();
  client = await startPgliteWorker({ dataDir: dir, postgresqlconf: 'shared_buffers = 8MB' });
  assert.deepEqual((await rows('select id from notes order by id')).map((row) => row.id), [1, 2, 3, 4, 5]);
});

test('the idle policy restarts only after enough calls and enough idle time, one restart at a time', async () => {
  let activity = { calls: 0, idleMs: 0 };
  let restarts = 0;
  let finish!: () => void;
  const fake = {
    activity: () => activity,
    restart: () => {
      restarts += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    },
  };
  const reported: Array<{ calls: number }> = [];
  let restarted!: () => void;
  const done = new Promise<void>((resolve) => (restarted = resolve));
  const policy = restartWhenIdle(fake, { idleMs: 60_000, minCalls: 200, onRestart: (details) => (reported.push(details), restarted()) });
  try {
    activity = { calls: 199, idleMs: 3_600_000 };
    policy.check();
    assert.equal(restarts, 0, 'a thread that served little is left as it is');
    activity = { calls: 5_000, idleMs: 59_999 };
    policy.check();
    assert.equal(restarts, 0, 'not before the idle time');
    activity = { calls: 5_000, idleMs: 60_000 };
    policy.check();
    policy.check();
    assert.equal(restarts, 1, 'one restart at a time');
    finish();
    await done;
    assert.deepEqual(reported.map((details) => details.calls), [5_000]);
  } finally {
    policy.stop();
  }
});

test('a restart that fails is reported, and the next check tries again', async () => {
  let attempts = 0;
  let failedWith!: (error: unknown) => void;
  const failure = new Promise<unknown>((resolve) => (failedWith = resolve));
  const fake = { activity: () => ({ calls: 1_000, idleMs: 120_000 }), restart: () => (attempts += 1, Promise.reject(new Error('no files'))) };
  const policy = restartWhenIdle(fake, { idleMs: 60_000, onError: (error) => failedWith(error) });
  try {
    policy.check();
    assert.match(String(await failure), /no files/);
    // the failure settles before the flag is cleared (finally): one turn of the microtask queue later
    await new Promise((resolve) => setImmediate(resolve));
    policy.check();
    assert.equal(attempts, 2);
  } finally {
    policy.stop();
  }
});

test('the idle policy against the real thread: it restarts once idle', async () => {
  for (let id = 10; id < 20; id += 1) await client.query(`insert into notes (id, note) values (${id}, 'load')`);
  let restarted!: (details: { calls: number; ms: number }) => void;
  const done = new Promise<{ calls: number; ms: number }>((resolve) => (restarted = resolve));
  const policy = restartWhenIdle(client, { idleMs: 40, minCalls: 10, onRestart: (details) => restarted(details) });
  try {
    const details = await done;
    assert.ok(details.calls >= 10);
    assert.equal(client.activity().calls, 0);
  } finally {
    policy.stop();
  }
  assert.equal((await rows('select count(*)::int as n from notes where note = \'load\''))[0]!.n, 10);
});
