/**
 * The embedded database in its worker thread: queries, database errors with their codes, transactions that
 * commit or roll back whole, calls kept in order around a transaction, named prepared statements with binary
 * parameters (a batch written into memory shared with the thread, given as chunks or as one buffer), and a clean
 * close.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPgliteWorker, type PgliteWorkerClient } from '../src/storage/pglite-worker/client.ts';

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

test("a batch reaches the database's thread through shared memory: as chunks or one buffer, the caller's buffers left as they were", async () => {
  const statement = { name: 'insert_many', text: 'insert into t (id, note) select (e->>0)::int, e->>1 from json_array_elements($1::json) e', parameterTypes: [114] };
  const rows = Array.from({ length: 2000 }, (_, index) => Buffer.from(JSON.stringify([1000 + index, `note ${index} ${'x'.repeat(40)}`])));
  // the JSON array's text as chunks: '[', each row, a comma between them, ']'
  const chunks = [Buffer.from('['), ...rows.flatMap((row, index) => (index === 0 ? [row] : [Buffer.from(','), row])), Buffer.from(']')];
  const whole = Buffer.from('[[3000, "one buffer"]]');
  const before = await count();
  await client.execPrepared(statement, [chunks]);
  await client.execPrepared(statement, [whole]);
  assert.equal(await count(), before + 2001);
  assert.equal(rows[1999]!.toString(), JSON.stringify([2999, `note 1999 ${'x'.repeat(40)}`]), 'nothing moved out of the caller');
  assert.equal(whole.toString(), '[[3000, "one buffer"]]');
  const last = (await client.query('select note from t where id in (2999, 3000) order by id')) as { rows: Array<{ note: string }> };
  assert.deepEqual(last.rows.map((row) => row.note), [`note 1999 ${'x'.repeat(40)}`, 'one buffer']);
  await client.exec('delete from t where id >= 1000');
});

test('statements sent at once each run with their own parameters: a message is written into the shared memory only when its turn comes', async () => {
  const statement = { name: 'insert_many', text: 'insert into t (id, note) select (e->>0)::int, e->>1 from json_array_elements($1::json) e', parameterTypes: [114] };
  const batch = (first: number, size: number) => Buffer.from(JSON.stringify(Array.from({ length: size }, (_, index) => [first + index, `batch ${first} ${'z'.repeat(size)}`])));
  const before = await count();
  // sizes that grow and shrink: a longer message after a shorter one, and the other way round
  await Promise.all([batch(5000, 50), batch(6000, 400), batch(7000, 10), batch(8000, 300)].map((param) => client.execPrepared(statement, [param])));
  assert.equal(await count(), before + 760);
  const notes = (await client.query('select min(id)::int as first, count(*)::int as n, min(note) as note from t where id >= 5000 group by id / 1000 order by 1')) as {
    rows: Array<{ first: number; n: number; note: string }>;
  };
  assert.deepEqual(
    notes.rows.map((row) => [row.first, row.n, row.note]),
    [
      [5000, 50, `batch 5000 ${'z'.repeat(50)}`],
      [6000, 400, `batch 6000 ${'z'.repeat(400)}`],
      [7000, 10, `batch 7000 ${'z'.repeat(10)}`],
      [8000, 300, `batch 8000 ${'z'.repeat(300)}`],
    ],
  );
  await client.exec('delete from t where id >= 5000');
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
