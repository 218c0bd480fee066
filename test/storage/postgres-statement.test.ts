/**
 * A prepared statement run on node-postgres with its parameters' chunks written to the socket as they are
 * (src/storage/postgres-statement.ts), against the real PostgreSQL (TEST_DATABASE_URL): the rows it writes, one
 * Parse per connection, errors with their SQLSTATE and the connection usable after them, and the chunks never
 * copied into a message.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { bindExecutePieces, type PreparedStatement } from '../../src/storage/extended-protocol.ts';
import { runStatement } from '../../src/storage/postgres-statement.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const skip = serverUrl ? false : 'needs TEST_DATABASE_URL';

let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
let pool: pg.Pool;

before(async () => {
  if (skip) return;
  database = await createPostgresDatabase(serverUrl!);
  // one connection: every run below meets the same session
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query('create table notes (id int primary key, body bytea not null, label text)');
});

after(async () => {
  await pool?.end();
  await database?.drop();
});

// 17: bytea, 23: int4, 25: text (their binary formats: the bytes; a big-endian int32; the UTF-8 text)
const INSERT: PreparedStatement = { name: 'notes_insert', text: 'insert into notes (id, body, label) values ($1, $2, $3)', parameterTypes: [23, 17, 25] };

const int4 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
};

test('a statement runs with a parameter in chunks, parsed once on the connection', { skip }, async () => {
  const chunks = [Buffer.from('one '), Buffer.from('twö '), Buffer.alloc(0), Buffer.alloc(300_000, 0x61)];
  await runStatement(pool, INSERT, [int4(1), chunks, 'first']);
  await runStatement(pool, INSERT, [int4(2), [Buffer.from('x')], null]);
  const { rows } = await pool.query<{ id: number; body: Buffer; label: string | null }>('select id, body, label from notes order by id');
  assert.deepEqual(rows.map((row) => row.id), [1, 2]);
  assert.deepEqual(rows[0]!.body, Buffer.concat(chunks));
  assert.equal(rows[0]!.label, 'first');
  assert.equal(rows[1]!.label, null, 'null is SQL NULL');
  const prepared = await pool.query<{ count: string }>('select count(*) from pg_prepared_statements where name = $1', [INSERT.name]);
  assert.equal(prepared.rows[0]!.count, '1', 'prepared once on the connection, run twice');
});

test('an error rejects with its SQLSTATE, and the connection serves the next run', { skip }, async () => {
  await assert.rejects(runStatement(pool, INSERT, [int4(1), [Buffer.from('again')], null]), (error: Error & { code?: string }) => error.code === '23505');
  await assert.rejects(runStatement(pool, { name: 'broken', text: 'insert into nowhere values ($1)', parameterTypes: [23] }, [int4(1)]), (error: Error & { code?: string }) => error.code === '42P01');
  // a statement whose Parse failed is parsed again when it runs next (here, now that its table exists)
  await pool.query('create table nowhere (id int)');
  await runStatement(pool, { name: 'broken', text: 'insert into nowhere values ($1)', parameterTypes: [23] }, [int4(7)]);
  await runStatement(pool, INSERT, [int4(3), [Buffer.from('after')], 'after']);
  assert.deepEqual((await pool.query('select id from nowhere')).rows, [{ id: 7 }]);
  assert.equal((await pool.query('select count(*)::int as n from notes')).rows[0].n, 3);
});

test('the pieces of a Bind hold the parameter\'s own chunks, not copies', () => {
  const chunks = [Buffer.from('a'), Buffer.from('b')];
  const pieces = bindExecutePieces('s', [chunks, null]);
  assert.ok(pieces.includes(chunks[0]!) && pieces.includes(chunks[1]!));
});
