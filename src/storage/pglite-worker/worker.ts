/**
 * The thread that owns the embedded PGlite database. PGlite runs PostgreSQL compiled to WebAssembly on the thread
 * that calls it: on the gateway's own thread every query (a request-log batch above all, ~35 µs a row) would pause
 * the requests in flight. Here it pauses nothing but this thread. Requests are answered in the order they come.
 */
import path from 'node:path';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types, type SerializerOptions } from '@electric-sql/pglite';
import { parseMessage } from '../extended-protocol.ts';
import { seedFromTemplate } from './template.ts';
import { type SerializedError, type WorkerReply, type WorkerRequest, type WorkerStart } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('the PGlite worker must run in a worker thread');
const start = (workerData as { start: WorkerStart }).start;

function serialize(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

const identity = (value: unknown) => value;

/**
 * A json parameter given as bytes (request-log rows as JSON from the occasional writers, insertRequestLogs: already
 * UTF-8) goes to PostgreSQL as they are, in the binary format (json's is its text). PGlite's own serializer would
 * JSON.stringify a Uint8Array, and a string parameter costs two JavaScript loops over every character to measure its
 * UTF-8 length, then the encoding (docs/performance.md). The writer's batches are binary records and do not come
 * this way (execPrepared).
 */
const defaultJson = types.serializers[types.JSON];
// PGlite's types say a serializer returns a string; its Bind message takes any ArrayBuffer view as binary
const jsonSerializers = {
  [types.JSON]: (value: unknown) => (value instanceof Uint8Array ? value : defaultJson!(value)),
} as unknown as SerializerOptions;

async function open(): Promise<PGlite> {
  const options = { postgresqlconf: start.postgresqlconf };
  if (!start.dataDir) {
    // a seed skips initdb (~3 s of CPU and hundreds of MB of WebAssembly memory): ~0.5 s to unpack instead
    return new PGlite(start.seed ? { ...options, loadDataDir: new Blob([fs.readFileSync(start.seed)]) } : options);
  }
  fs.mkdirSync(start.dataDir, { recursive: true });
  const dir = path.join(start.dataDir, 'pglite');
  // a first start copies the build's initdb'd template (template.ts): no initdb, ~5 s and ~550 MB less
  seedFromTemplate(dir);
  return new PGlite(dir, options);
}

const ready = open().then(async (db) => {
  await db.waitReady;
  return db;
});

/** the named statements prepared on this connection (PGlite's one): Parse once each */
const prepared = new Set<string>();

async function runPrepared(db: PGlite, request: Extract<WorkerRequest, { op: 'prepared' }>): Promise<null> {
  if (!prepared.has(request.name)) {
    await db.execProtocol(parseMessage(request.name, request.sql, request.parameterTypes));
    prepared.add(request.name);
  }
  // the message, in memory shared with the gateway's thread, is read once, while PGlite runs it
  await db.execProtocol(request.message);
  return null;
}

async function handle(db: PGlite, request: WorkerRequest): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      // the caller's parsers (drizzle's) keep these types as the text PostgreSQL sent; functions cannot cross threads
      const parsers = Object.fromEntries(request.identityTypes.map((type) => [type, identity]));
      return db.query(request.sql, request.params, { rowMode: request.rowMode, parsers, serializers: jsonSerializers });
    }
    case 'exec':
      return db.exec(request.sql);
    case 'prepared':
      return runPrepared(db, request);
    case 'close':
      await db.close();
      return null;
  }
}

port.on('message', (request: WorkerRequest) => {
  ready
    .then((db) => handle(db, request))
    .then(
      (result) => port.postMessage({ id: request.id, result } satisfies WorkerReply),
      (error: unknown) => port.postMessage({ id: request.id, error: serialize(error) } satisfies WorkerReply),
    );
});

ready.then(
  () => port.postMessage({ id: 0, result: 'ready' } satisfies WorkerReply),
  (error: unknown) => port.postMessage({ id: 0, error: serialize(error) } satisfies WorkerReply),
);
