/**
 * The gateway's side of the embedded database: a client with the part of PGlite's interface that Drizzle uses
 * (`query`, `exec`, `transaction`), each call a message to the worker thread that owns PGlite (worker.ts).
 *
 * PGlite is one connection, so calls run one at a time, in order, as PGlite itself would run them: a transaction
 * holds the line from BEGIN to COMMIT or ROLLBACK, and only its own client's queries run meanwhile. (As with
 * PGlite, a query on the outer client from inside a transaction's callback would wait for the transaction.)
 */
import { Worker } from 'node:worker_threads';
import { bindExecuteMessage, type BinaryParameter, type PreparedStatement } from '../extended-protocol.ts';
import { SharedMessageBuffer } from './message-buffer.ts';
import { type SerializedError, type WorkerReply, type WorkerRequest, type WorkerStart } from './protocol.ts';

type Outgoing = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<string, unknown> };

export interface PgliteTransactionClient {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
}

export interface PgliteWorkerClient extends PgliteTransactionClient {
  transaction<T>(callback: (tx: PgliteTransactionClient) => Promise<T>): Promise<T>;
  /** runs a named prepared statement, outside any transaction (prepared on first use; no rows returned) */
  execPrepared(statement: PreparedStatement, params: BinaryParameter[]): Promise<void>;
  close(): Promise<void>;
}

/** The client of the thread this process owns (a cluster's workers reach it through the primary, without these). */
export interface PgliteThreadClient extends PgliteWorkerClient {
  /** calls made since the thread (re)started, and the time since the last one began */
  activity(): { calls: number; idleMs: number };
  /**
   * closes the database thread and starts a new one on the same files, after the calls already waiting; calls made
   * meanwhile wait for it. What the old thread's PostgreSQL held (its buffers, statement memory: WebAssembly memory,
   * which only grows) goes back to the system (restartWhenIdle, idle-restart.ts). Rejects when the new thread cannot
   * open; calls then fail until a restart succeeds.
   */
  restart(): Promise<void>;
}

function toError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  // the database's own fields (code, detail, constraint...): callers test `code` (23505 is a unique violation)
  return Object.assign(error, serialized.fields);
}

/**
 * Compiled (dist/, `npm start`; `npm test`'s bundles, scripts/test-bundle.mjs): the worker is the bundle's
 * pglite-worker.js, beside this module's compiled code. From the TypeScript sources (`npm run dev`, processes spawned
 * with `--import tsx`): worker threads do not inherit the parent's loader, so boot.mjs registers tsx first.
 */
function startThread(start: WorkerStart): Worker {
  const compiled = import.meta.url.endsWith('.js');
  if (compiled) return new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: { start }, resourceLimits: THREAD_LIMITS });
  return new Worker(new URL('./boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./worker.ts', import.meta.url).href, start },
    resourceLimits: THREAD_LIMITS,
  });
}

/**
 * The database thread's own V8 heap. Its JavaScript is PGlite's glue and the messages it passes: a young generation
 * of 4 MB is plenty, where the process's flags (npm start's `--max-semi-space-size=16`, sized for the request path)
 * would let this thread's grow to 48 MB as well. Measured under bench/memory.ts's load, three pairs of runs: peak RSS
 * 312-327 MiB against 327-352, the thread's CPU per request unchanged (docs/performance.md, "Two modes").
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

let prestarted: { key: string; client: Promise<PgliteThreadClient> } | undefined;

/**
 * Starts the database thread ahead of time (main.ts calls it before loading the rest of the gateway, so PGlite's
 * compilation and start run alongside); the next startPgliteWorker with the same settings adopts it.
 */
export function prestartPgliteWorker(start: WorkerStart): void {
  const client = openWorker(start);
  client.catch(() => undefined); // reported to the caller that adopts it
  prestarted = { key: JSON.stringify(start), client };
}

export async function startPgliteWorker(start: WorkerStart): Promise<PgliteThreadClient> {
  if (prestarted && prestarted.key === JSON.stringify(start)) {
    const { client } = prestarted;
    prestarted = undefined;
    return client;
  }
  return openWorker(start);
}

/** One database thread: a message out, its reply back. */
interface Thread {
  /** undefined: the thread could not be started (failedThread) */
  worker: Worker | undefined;
  send(request: Outgoing): Promise<unknown>;
}

/** Starts a database thread and waits until PGlite in it is open; rejects when it cannot open. */
async function connect(start: WorkerStart): Promise<Thread> {
  const worker = startThread(start);
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
  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return { worker, send };
}

/** A thread that could not be started: every call gets its error, until a restart succeeds. */
function failedThread(error: unknown): Thread {
  const failure = error instanceof Error ? error : new Error(String(error));
  return { worker: undefined, send: () => Promise.reject(failure) };
}

async function stopThread(thread: Thread): Promise<void> {
  if (!thread.worker) return;
  // PGlite closes its files (a checkpoint) before the thread goes
  await thread.send({ op: 'close' }).catch(() => undefined);
  await thread.worker.terminate();
}

async function openWorker(start: WorkerStart): Promise<PgliteThreadClient> {
  let thread = await connect(start);
  let calls = 0;
  let lastCallAt = performance.now();

  // one call at a time, as on PGlite's single connection
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    calls += 1;
    lastCallAt = performance.now();
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };

  // `thread` is read at each call: a restart replaces it
  const direct: PgliteTransactionClient = {
    query: (sql, params = [], options = {}) =>
      thread.send({ op: 'query', sql, params, rowMode: options.rowMode ?? 'object', identityTypes: Object.keys(options.parsers ?? {}).map(Number) }),
    exec: (sql) => thread.send({ op: 'exec', sql }),
  };

  const messages = new SharedMessageBuffer();
  let closed = false;
  return {
    query: (sql, params, options) => exclusive(() => direct.query(sql, params, options)),
    exec: (sql) => exclusive(() => direct.exec(sql)),
    execPrepared: async (statement, params) => {
      // written when its turn comes: the shared memory holds one message at a time
      await exclusive(() => {
        const message = bindExecuteMessage(statement.name, params, (bytes) => messages.take(bytes));
        return thread.send({ op: 'prepared', name: statement.name, sql: statement.text, parameterTypes: statement.parameterTypes, message });
      });
    },
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
    activity: () => ({ calls, idleMs: performance.now() - lastCallAt }),
    restart: () => {
      // in the line like any call: it waits for the calls before it (a transaction whole), and those after wait for it
      const result = tail.then(async () => {
        if (closed) return;
        await stopThread(thread);
        try {
          thread = await connect(start);
        } catch (error) {
          thread = failedThread(error);
          throw error;
        }
        calls = 0;
      });
      tail = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      await (tail = tail.then(() => stopThread(thread)));
    },
  };
}
