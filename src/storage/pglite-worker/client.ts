/**
 * The gateway's side of the embedded database: a client with the part of PGlite's interface that Drizzle uses
 * (`query`, `exec`, `transaction`), each call a message to the worker thread that owns PGlite (worker.ts).
 *
 * PGlite is one connection, so calls run one at a time, in order, as PGlite itself would run them: a transaction
 * holds the line from BEGIN to COMMIT or ROLLBACK, and only its own client's queries run meanwhile. (As with
 * PGlite, a query on the outer client from inside a transaction's callback would wait for the transaction.)
 */
import { Worker } from 'node:worker_threads';
import type { SerializedError, WorkerReply, WorkerRequest, WorkerStart } from './protocol.ts';

type Outgoing = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<string, unknown> };

export interface PgliteTransactionClient {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
}

export interface PgliteWorkerClient extends PgliteTransactionClient {
  transaction<T>(callback: (tx: PgliteTransactionClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function toError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  // the database's own fields (code, detail, constraint...): callers test `code` (23505 is a unique violation)
  return Object.assign(error, serialized.fields);
}

export async function startPgliteWorker(start: WorkerStart): Promise<PgliteWorkerClient> {
  const worker = new Worker(new URL('./boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./worker.ts', import.meta.url).href, start },
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failed: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  });
  worker.on('message', (reply: WorkerReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if ('error' in reply) waiting.reject(toError(reply.error));
    else waiting.resolve(reply.result);
  });
  const failAll = (error: Error) => {
    failed = error;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the embedded database thread exited (code ${code})`)));

  const send = (request: Outgoing): Promise<unknown> => {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id } as WorkerRequest);
    });
  };

  // one call at a time, as on PGlite's single connection
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };

  const direct: PgliteTransactionClient = {
    query: (sql, params = [], options = {}) =>
      send({ op: 'query', sql, params, rowMode: options.rowMode ?? 'object', identityTypes: Object.keys(options.parsers ?? {}).map(Number) }),
    exec: (sql) => send({ op: 'exec', sql }),
  };

  await ready;
  return {
    query: (sql, params, options) => exclusive(() => direct.query(sql, params, options)),
    exec: (sql) => exclusive(() => direct.exec(sql)),
    transaction: (callback) =>
      exclusive(async () => {
        await direct.exec('BEGIN');
        try {
          const result = await callback(direct);
          await direct.exec('COMMIT');
          return result;
        } catch (error) {
          await direct.exec('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    async close() {
      if (!failed) await exclusive(() => send({ op: 'close' })).catch(() => undefined);
      await worker.terminate();
    },
  };
}
