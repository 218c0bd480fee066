/**
 * The request log's rows in PostgreSQL's binary format (src/storage/pg-binary.ts, request-logs-binary.ts): each
 * encoder against fixed bytes, then against the database's own `*_send` functions on every back-end, and a row
 * written through the writer's binary batch read back equal to the same row written as JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openPostgresLogStore } from '../../src/logging/log-store.ts';
import { createRequestLogWriter } from '../../src/logging/request-log.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { migrate, rowsOf } from '../../src/storage/migrate.ts';
import { BinaryWriter, numericParts, writeField, type BinaryType } from '../../src/storage/pg-binary.ts';
import { openBinaryLogInsert } from '../../src/storage/repositories/request-logs-binary.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { testBackends } from '../helpers/databases.ts';

/** a field's bytes, in hex: its length (8 hex digits, ffffffff for NULL), then its value */
function fieldHex(type: BinaryType, value: unknown): string {
  const writer = new BinaryWriter(4);
  writeField(writer, type, value);
  return writer.copy().toString('hex');
}

describe('binary encoders, fixed bytes', () => {
  test('a uuid is its length and 16 bytes, any case; anything else is NULL (nothing of it left in the buffer)', () => {
    assert.equal(fieldHex('uuid', '00112233-4455-6677-8899-aabbccddeeff'), '0000001000112233445566778899aabbccddeeff');
    assert.equal(fieldHex('uuid', '00112233-4455-6677-8899-AABBCCDDEEFF'), '0000001000112233445566778899aabbccddeeff');
    // the last one goes wrong at its last digit, after 15 bytes were decoded into the buffer
    for (const bad of ['00112233445566778899aabbccddeeff', '0011223-34455-6677-8899-aabbccddeeff', '', 'x'.repeat(36), 7, '00112233-4455-6677-8899-aabbccddeefg']) {
      assert.equal(fieldHex('uuid', bad), 'ffffffff', String(bad));
    }
  });

  test('a numeric is base-10000 digits with their weight, sign and scale', () => {
    const cases: Array<[string | number, ReturnType<typeof numericParts>]> = [
      ['0', { digits: [], weight: 0, negative: false, scale: 0 }],
      ['0.000000000000', { digits: [], weight: 0, negative: false, scale: 12 }],
      ['0.0001644', { digits: [1, 6440], weight: -1, negative: false, scale: 7 }],
      ['12345.6789', { digits: [1, 2345, 6789], weight: 1, negative: false, scale: 4 }],
      ['-1.5', { digits: [1, 5000], weight: 0, negative: true, scale: 1 }],
      ['100000000', { digits: [1], weight: 2, negative: false, scale: 0 }],
      ['100', { digits: [100], weight: 0, negative: false, scale: 0 }],
      ['000123.000000000001', { digits: [123, 0, 0, 1], weight: 0, negative: false, scale: 12 }],
      [0.25, { digits: [2500], weight: -1, negative: false, scale: 2 }],
      [7, { digits: [7], weight: 0, negative: false, scale: 0 }],
    ];
    for (const [value, parts] of cases) assert.deepEqual(numericParts(value), parts, String(value));
    for (const bad of ['abc', '1e5', '1.', '.5', '', '--1', Number.NaN, Number.POSITIVE_INFINITY, 1e21]) assert.equal(numericParts(bad), null, String(bad));
  });

  test('fields: their length then their bytes, NULL where the type cannot hold the value', () => {
    assert.equal(fieldHex('timestamptz', new Date('2000-01-01T00:00:00.001Z')), '00000008' + '00000000000003e8');
    assert.equal(fieldHex('timestamptz', new Date('1999-12-31T23:59:59.000Z')), '00000008' + 'fffffffffff0bdc0');
    assert.equal(fieldHex('timestamptz', new Date(Number.NaN)), 'ffffffff');
    assert.equal(fieldHex('int4', -2), '00000004' + 'fffffffe');
    assert.equal(fieldHex('int4', 1.6), '00000004' + '00000002');
    assert.equal(fieldHex('int4', 2 ** 31), 'ffffffff');
    assert.equal(fieldHex('int4', Number.NaN), 'ffffffff');
    assert.equal(fieldHex('int4', '12'), '00000004' + '0000000c', 'a number in text, as the text input took it');
    assert.equal(fieldHex('int4', ''), 'ffffffff');
    assert.equal(fieldHex('int4', 'x'), 'ffffffff');
    assert.equal(fieldHex('bool', true), '00000001' + '01');
    assert.equal(fieldHex('text', 'é'), '00000002' + 'c3a9');
    assert.equal(fieldHex('text', ''), '00000000');
    assert.equal(fieldHex('jsonb', { a: 1 }), '00000008' + '01' + Buffer.from('{"a":1}').toString('hex'));
    assert.equal(fieldHex('uuid', 'not a uuid'), 'ffffffff');
    assert.equal(fieldHex('numeric', 'twelve'), 'ffffffff');
    assert.equal(fieldHex('text', null), 'ffffffff');
  });

  test('a NUL character, which PostgreSQL cannot store, becomes U+FFFD; an escaped backslash before "u0000" is left alone', () => {
    assert.equal(fieldHex('text', 'a\u0000b'), '00000005' + '61efbfbd62');
    const json = Buffer.from(fieldHex('jsonb', { m: 'a\u0000b', literal: '\\u0000', both: '\\\u0000' }).slice(10), 'hex').toString();
    assert.equal(json, JSON.stringify({ m: 'a\uFFFDb', literal: '\\u0000', both: '\\\uFFFD' }).replaceAll('\uFFFD', '\\ufffd'));
    assert.deepEqual(JSON.parse(json), { m: 'a\uFFFDb', literal: '\\u0000', both: '\\\uFFFD' });
  });

  test('records copied out keep their bytes while later ones are written (shared slabs, a large record on its own)', () => {
    const writer = new BinaryWriter();
    const texts = Array.from({ length: 300 }, (_, index) => String.fromCharCode(97 + (index % 26)).repeat(index % 7 === 0 ? 70_000 : 1 + ((index * 997) % 6000)));
    const copies = texts.map((text) => {
      writer.reset();
      writeField(writer, 'text', text);
      return writer.copy();
    });
    copies.forEach((copy, index) => assert.equal(copy.subarray(4).toString(), texts[index], `record ${index}`));
    assert.ok(new Set(copies.map((copy) => copy.buffer)).size < copies.length / 4, 'small records share their slabs');
  });

  test('the writer grows past its first size and keeps what it wrote', () => {
    const text = 'ab☃'.repeat(10_000);
    assert.equal(fieldHex('text', text).slice(8), Buffer.from(text).toString('hex'));
  });
});

const ORG = '00000000-0000-4000-8000-0000000000a1';

/** a row with every column given a value (tokens, cost, headers, bodies with characters of every width) */
function fullRow(id: string): NewRequestLogRow {
  return {
    id,
    organisationId: ORG,
    workspaceId: '00000000-0000-4000-8000-0000000000b2',
    apiKeyId: '00000000-0000-4000-8000-0000000000c3',
    userId: '00000000-0000-4000-8000-0000000000d4',
    createdAt: new Date('2030-05-06T07:08:09.123Z'),
    traceId: 'trace-é-☃-😀',
    spanId: 'span-1',
    parentSpanId: 'parent-1',
    spanName: 'name',
    route: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    isSuccess: true,
    streamMode: true,
    responseTimeMs: 1234,
    cacheStatus: 'MISS',
    retryCount: 2,
    lastUsedOptionIndex: 'config.targets[1]',
    configId: '00000000-0000-4000-8000-0000000000e5',
    configVersionId: '00000000-0000-4000-8000-0000000000f6',
    promptTokens: 1040,
    completionTokens: 14,
    totalTokens: 1054,
    cachedTokens: 3,
    cacheWriteTokens: 4,
    reasoningTokens: 5,
    cost: '0.000164400000',
    savedCost: '12.5',
    providerSlug: 'my-openai',
    integrationId: '00000000-0000-4000-8000-000000000107',
    metadata: { _user: 'ü', team: 'a"b\\c', nested: { n: [1, 2.5, null, true] } },
    hookResults: { before_request_hooks: [] },
    error: { message: 'x', code: 'y' },
    upstreamTimeMs: 1000,
    firstByteMs: 1100,
    queueTimeMs: 7,
    attempts: [{ path: 'config.targets[0]', status: 500, duration_ms: 12 }, { path: 'config.targets[1]', status: 200, duration_ms: 30 }],
    mode: 'fallback',
    requestBody: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"é ☃ 😀 \\"quoted\\"\\n\\u0000"}]}',
    responseBody: '{"choices":[]}',
    bodiesTruncated: true,
    requestHeaders: { 'content-type': 'application/json', authorization: '********' },
    gatewayHeaders: { 'x-gateway-provider': 'openai' },
    responseHeaders: { 'x-request-id': 'r1' },
    isCustom: false,
    requestUrl: 'https://example.test/v1',
    promptId: '00000000-0000-4000-8000-000000000118',
    promptSlug: 'greeting',
    promptVersionId: '00000000-0000-4000-8000-000000000129',
  };
}

for (const backend of testBackends()) {
  describe(`binary request-log batches [${backend.name}]`, () => {
    let database: Database;
    let drop: () => Promise<void> = async () => {};

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      database = await openDatabase({ url: created.url, dataDir: 'memory://', seed: process.env.GATEWAY_TEST_PGLITE_SEED });
      await migrate(database.db);
    });

    after(async () => {
      await database?.close();
      await drop();
    });

    test("each encoder's bytes are what the database's own send function gives", async () => {
      const cases: Array<[BinaryType, string, string | number | boolean, unknown]> = [
        ['uuid', 'uuid_send($1::uuid)', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', undefined],
        ['timestamptz', 'timestamptz_send($1::timestamptz)', '2026-11-25T07:00:00.123456Z', new Date('2026-11-25T07:00:00.123Z')],
        ['timestamptz', 'timestamptz_send($1::timestamptz)', '1970-01-01T00:00:00Z', new Date(0)],
        ['text', 'textsend($1::text)', 'é ☃ 😀 "x"', undefined],
        ['int4', 'int4send($1::int4)', -123456, undefined],
        ['bool', 'boolsend($1::boolean)', false, undefined],
        ['numeric', 'numeric_send($1::numeric)', '0.0001644', undefined],
        ['numeric', 'numeric_send($1::numeric)', '-98765432.000000000100', undefined],
        ['numeric', 'numeric_send($1::numeric)', '0', undefined],
        ['numeric', 'numeric_send($1::numeric)', '10000', undefined],
      ];
      for (const [type, call, value, ours] of cases) {
        // the database's timestamps keep microseconds; a Date has ms: compare at ms
        const given = type === 'timestamptz' ? (ours as Date).toISOString() : value;
        const [row] = rowsOf<{ bytes: Uint8Array }>(await database.db.execute(sql.raw(`select ${call.replace('$1', `'${String(given)}'`)} as bytes`)));
        assert.equal(fieldHex(type, ours ?? value).slice(8), Buffer.from(row!.bytes).toString('hex'), `${type} ${String(value)}`);
      }
    });

    test('a row written as a binary record reads back equal to the same row written as JSON, rollups included', async () => {
      const store = await openPostgresLogStore(database, { retentionDays: 30 });
      await store.maintain(new Date('2030-05-06T00:00:00Z'));
      const binaryId = '00000000-0000-4000-8000-00000000b1a1';
      const jsonId = '00000000-0000-4000-8000-00000000a501';
      await store.insert([store.prepare(fullRow(binaryId))]);
      await insertRequestLogs(database.db, [fullRow(jsonId)]);
      const rows = rowsOf<Record<string, unknown>>(
        await database.db.execute(sql.raw(`select row_to_json(r)::text as json from request_logs r where organisation_id = '${ORG}' order by id`)),
      ).map((row) => JSON.parse(row.json as string) as Record<string, unknown>);
      assert.equal(rows.length, 2);
      const [fromJson, fromBinary] = rows as [Record<string, unknown>, Record<string, unknown>];
      assert.equal(fromBinary.id, binaryId);
      assert.deepEqual({ ...fromBinary, id: null }, { ...fromJson, id: null });
      assert.equal(fromBinary.cost, 0.0001644);
      assert.equal(fromBinary.request_body, fullRow(binaryId).requestBody);
      assert.equal(fromBinary.created_at, '2030-05-06T07:08:09.123+00:00');
      const [hourly] = rowsOf<{ requests: string | number; cost: string }>(
        await database.db.execute(sql.raw(`select requests, cost::text from analytics_hourly where organisation_id = '${ORG}'`)),
      );
      assert.equal(Number(hourly!.requests), 2);
      assert.equal(hourly!.cost, '0.000328800000');
    });

    test('a value its column cannot hold is stored NULL and the row is kept; plain defaults fill absent values', async () => {
      const store = await openPostgresLogStore(database, { retentionDays: 30 });
      const id = '00000000-0000-4000-8000-00000000bad1';
      const row = { ...fullRow(id), configId: 'not-a-uuid', promptTokens: 3e9, cost: 'free', streamMode: undefined, bodiesTruncated: undefined, attempts: undefined };
      await store.insert([store.prepare(row as NewRequestLogRow)]);
      const [stored] = rowsOf<Record<string, unknown>>(
        await database.db.execute(sql.raw(`select config_id, prompt_tokens, cost, stream_mode, bodies_truncated, attempts::text as attempts, model from request_logs where id = '${id}'`)),
      );
      assert.deepEqual({ ...stored }, { config_id: null, prompt_tokens: null, cost: null, stream_mode: false, bodies_truncated: false, attempts: '[]', model: 'gpt-4o-mini' });
    });

    test('a row with a NUL character in its bodies or error is stored, the NUL as U+FFFD', async () => {
      const store = await openPostgresLogStore(database, { retentionDays: 30 });
      const id = '00000000-0000-4000-8000-0000000000f1';
      const row = { ...fullRow(id), responseBody: 'RIFF\u0000\u0000audio', error: { message: 'bad\u0000byte', literal: '\\u0000' } };
      await store.insert([store.prepare(row)]);
      const [stored] = rowsOf<{ response_body: string; error: Record<string, string> }>(
        await database.db.execute(sql.raw(`select response_body, error from request_logs where id = '${id}'`)),
      );
      assert.equal(stored!.response_body, 'RIFF\uFFFD\uFFFDaudio');
      assert.deepEqual(stored!.error, { message: 'bad\uFFFDbyte', literal: '\\u0000' });
    });

    test('nodes opening the store together share one row type', async () => {
      const opened = await Promise.all([openBinaryLogInsert(database), openBinaryLogInsert(database), openBinaryLogInsert(database)]);
      const id = '00000000-0000-4000-8000-00000000cafe';
      await opened[2]!.insert([opened[0]!.encode(fullRow(id))]);
      const [count] = rowsOf<{ n: number | string }>(await database.db.execute(sql.raw(`select count(*) as n from request_logs where id = '${id}'`)));
      assert.equal(Number(count!.n), 1);
    });

    test('rows written through the writer in many batches read back intact while their slabs are reused', async () => {
      const store = await openPostgresLogStore(database, { retentionDays: 30 });
      const writer = createRequestLogWriter({
        prepare: (row) => store.prepare(row),
        insert: (rows) => store.insert(rows),
        release: (rows) => store.release(rows),
        logger: { error: (details) => assert.fail(JSON.stringify(details)) },
        batchSize: 40,
      });
      const expected = new Map<string, string>();
      // ~3 KB rows in rounds: each round's slabs are released once written and taken again by the next rounds
      for (let round = 0; round < 8; round += 1) {
        for (let index = 0; index < 60; index += 1) {
          const n = round * 60 + index;
          const id = `00000000-0000-4000-8000-${(0x5000 + n).toString(16).padStart(12, '0')}`;
          const body = `${n}:`.repeat(1 + ((n * 37) % 900)).padEnd(1200, '.');
          expected.set(id, body);
          writer.write({ ...fullRow(id), traceId: `slabs-${n}`, requestBody: body, responseBody: body.split('').reverse().join('') });
        }
        if (round % 2 === 1) await writer.flush(); // half the rounds queue on top of rows not written yet
      }
      await writer.close();
      const stored = rowsOf<{ id: string; request_body: string; response_body: string }>(
        await database.db.execute(sql.raw(`select id, request_body, response_body from request_logs where trace_id like 'slabs-%'`)),
      );
      assert.equal(stored.length, expected.size);
      for (const row of stored) {
        assert.equal(row.request_body, expected.get(row.id), row.id);
        assert.equal(row.response_body, expected.get(row.id)!.split('').reverse().join(''), row.id);
      }
    });

    // last: it changes the table
    test("a node keeps writing after a newer node's migration adds a column (the added column takes its default)", async () => {
      const store = await openPostgresLogStore(database, { retentionDays: 30 });
      await database.db.execute(sql.raw(`alter table request_logs add column added_later text not null default 'later'`));
      const id = '00000000-0000-4000-8000-0000000000ad';
      await store.insert([store.prepare(fullRow(id))]);
      const [stored] = rowsOf<{ added_later: string; model: string }>(await database.db.execute(sql.raw(`select added_later, model from request_logs where id = '${id}'`)));
      assert.deepEqual({ ...stored }, { added_later: 'later', model: 'gpt-4o-mini' });
    });
  });
}
