/**
 * The embedded database in its worker thread: queries, database errors with their codes, transactions that
 * commit or roll back whole, calls kept in order around a transaction, named prepared statements with binary
 * parameters (a large one handed over to the thread, not copied, and moved back with the reply once run), and a clean
 * close.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { once } from 'node:events';
import { startPgliteWorker, startThread, type PgliteWorkerClient } from '../src/storage/pglite-worker/client.ts';
import { ownedBuffers, type WorkerReply } from '../src/storage/pglite-worker/protocol.ts';

let client: PgliteWorkerClient;

before(async () => {
  client = await startPgliteWorker({ dataDir: undefined, postgresqlconf: 'shared_buffers = 16MB' });
  await client.exec('create table t (id int primary key, note text, at timestamptz default now())');
});

after(async () => {
  await client.close();
});

const count = async () => ((await client.query('select count(*)::int as n from t')) as { rows: Array<{ n: number }> }).rows[0]!.n;

test('a query answers rows in either mode; identity parsers keep timestamps as the text PostgreSQL sent', async () => {
  await client.query('insert into t (id, note) values ($1, $2)', [1, 'one']);
  const objects = (await client.query('select id, note, at from t where id = $1', [1], { parsers: { 1184: (value: unknown) => value } })) as { rows: Array<Record<string, unknown>> };
  assert.equal(objects.rows[0]!.note, 'one');
  assert.equal(typeof objects.rows[0]!.at, 'string');
  const arrays = (await client.query('select id, note from t', [], { rowMode: 'array' })) as { rows: unknown[][] };
  assert.deepEqual(arrays.rows, [[1, 'one']]);
});

test('a database error keeps its code and message', async () => {
  await assert.rejects(client.query('insert into t (id) values (1)'), (error: unknown) => {
    assert.equal((error as { code?: string }).code, '23505');
    assert.match((error as Error).message, /duplicate key/);
    return true;
  });
});

test('a named prepared statement runs again and again with binary parameters; its errors keep their codes', async () => {
  const statement = { name: 'insert_notes', text: 'insert into t (id, note) select (e->>0)::int, e->>1 from json_array_elements($1::json) e', parameterTypes: [114] };
  const before = await count();
  await client.execPrepared(statement, [Buffer.from('[[100, "a"], [101, "é"]]')]);
  await client.execPrepared(statement, [Buffer.from('[[102, null]]')]);
  assert.equal(await count(), before + 3);
  const notes = (await client.query('select note from t where id >= 100 order by id')) as { rows: Array<{ note: string | null }> };
  assert.deepEqual(notes.rows.map((row) => row.note), ['a', 'é', null]);
  // a failing run: the database's error, nothing of that batch kept, and the statement and the connection still work
  await assert.rejects(client.execPrepared(statement, [Buffer.from('[[103, "b"], [100, "again"]]')]), (error: unknown) => {
    assert.equal((error as { code?: string }).code, '23505');
    return true;
  });
  await assert.rejects(client.execPrepared(statement, [Buffer.from('[[104, ')]), (error: unknown) => {
    assert.equal((error as { code?: string }).code, '22P02'); // invalid JSON text
    return true;
  });
  assert.equal(await count(), before + 3);
  await client.execPrepared(statement, [Buffer.from('[[103, "b"]]')]);
  assert.equal(await count(), before + 4);
  await client.exec('delete from t where id >= 100');
});

test('a parameter that owns its memory is handed over to the database thread, not copied; a slice of the pool is copied', async () => {
  const statement = { name: 'insert_many', text: 'insert into t (id, note) select (e->>0)::int, e->>1 from json_array_elements($1::json) e', parameterTypes: [114] };
  const rows = Array.from({ length: 2000 }, (_, index) => [1000 + index, `note ${index} ${'x'.repeat(40)}`]);
  const owned = Buffer.from(JSON.stringify(rows));
  assert.equal(owned.byteLength, owned.buffer.byteLength, 'the batch is an ArrayBuffer of its own (larger than the pool)');
  const small = Buffer.from('[[3000, "pooled"]]');
  assert.notEqual(small.byteLength, small.buffer.byteLength, 'a small Buffer is a slice of the shared pool');
  const before = await count();
  await client.execPrepared(statement, [owned]);
  await client.execPrepared(statement, [small]);
  assert.equal(await count(), before + 2001);
  assert.equal(owned.byteLength, 0, 'handed over: nothing left to copy on this thread');
  assert.equal(small.toString(), '[[3000, "pooled"]]', 'the pool is never handed over');
  const last = (await client.query('select note from t where id = 2999')) as { rows: Array<{ note: string }> };
  assert.equal(last.rows[0]!.note, `note 1999 ${'x'.repeat(40)}`);
  await client.exec('delete from t where id >= 1000');
});

test('the buffers a thread may move are whole ArrayBuffers of their own, each once', () => {
  const whole = Buffer.from('x'.repeat(10_000));
  const pooled = Buffer.from('small');
  const slice = whole.subarray(10);
  const own = new Uint8Array(8);
  const moved = ownedBuffers([whole, pooled, slice, null, 'text', whole, own]);
  assert.equal(moved.length, 2);
  assert.equal(moved[0], whole.buffer);
  assert.equal(moved[1], own.buffer);
  assert.deepEqual(ownedBuffers([pooled, slice, null, 'text']), []);
});

test("a prepared statement's reply moves the batch and its message back (freed by the caller's next young collection)", async () => {
  const thread = startThread({ dataDir: undefined, postgresqlconf: 'shared_buffers = 8MB' });
  try {
    const [ready] = (await once(thread, 'message')) as [WorkerReply];
    assert.ok(!('error' in ready), JSON.stringify(ready));
    const batch = Buffer.from(JSON.stringify(Array.from({ length: 1000 }, (_, index) => [index, 'y'.repeat(60)])));
    const length = batch.byteLength;
    const request = { id: 1, op: 'prepared', name: 'sum_ids', sql: 'select sum((e->>0)::int) from json_array_elements($1::json) e', parameterTypes: [114], params: [batch] };
    thread.postMessage(request, [batch.buffer as ArrayBuffer]);
    const [reply] = (await once(thread, 'message')) as [WorkerReply];
    assert.ok(!('error' in reply), JSON.stringify(reply));
    const spent = (reply.spent ?? []).map((buffer) => buffer.byteLength).sort((a, b) => a - b);
    assert.equal(spent.length, 2, `the batch and the Bind message: ${spent.join(', ')}`);
    assert.equal(spent[0], length);
    assert.ok(spent[1]! > length, 'the Bind message holds the batch and its framing');
  } finally {
    await thread.terminate();
  }
});

test('a transaction commits whole or rolls back whole; calls outside it wait their turn', async () => {
  const before = await count();
  await client.transaction(async (tx) => {
    await tx.query('insert into t (id) values (10)');
    await tx.query('insert into t (id) values (11)');
  });
  assert.equal(await count(), before + 2);

  let outsideRan = false;
  const failing = client.transaction(async (tx) => {
    await tx.query('insert into t (id) values (20)');
    // queued behind the transaction: it must not see, nor be part of, the uncommitted row
    void count().then(() => {
      outsideRan = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outsideRan, false);
    throw new Error('abandon');
  });
  await assert.rejects(failing, /abandon/);
  assert.equal(await count(), before + 2, 'the rolled-back row is gone');
  assert.equal(outsideRan, true);
});
