/**
 * The primary's side of the workers' embedded database: runs their calls on the one PGlite client it owns.
 * A worker's transaction is one `client.transaction` held open from `begin` to `end`; the client's own queue makes
 * every other call wait for it. A worker that exits mid-transaction has it rolled back (forget).
 */
import type { PgliteTransactionClient, PgliteWorkerClient } from '../../storage/pglite-worker/client.ts';
import type { DatabaseRequest } from './protocol.ts';

interface OpenTransaction {
  tx: PgliteTransactionClient;
  finish(commit: boolean): void;
  done: Promise<void>;
}

/** Thrown inside the held transaction to make the client roll it back; never reaches a worker. */
const ROLLBACK = Symbol('rollback');

export interface DatabaseHost {
  handle(worker: number, request: DatabaseRequest): Promise<unknown>;
  /** rolls back what the worker left open (it exited) */
  forget(worker: number): void;
}

export function createDatabaseHost(client: PgliteWorkerClient): DatabaseHost {
  const open = new Map<string, OpenTransaction>();
  let nextTx = 1;

  const target = (worker: number, tx: number | undefined): PgliteTransactionClient => {
    if (tx === undefined) return client;
    const held = open.get(`${worker}:${tx}`);
    if (!held) throw new Error(`transaction ${tx} is not open`);
    return held.tx;
  };

  async function begin(worker: number): Promise<number> {
    const tx = nextTx++;
    let finish!: (commit: boolean) => void;
    const finished = new Promise<boolean>((resolve) => (finish = resolve));
    let opened!: (tx: PgliteTransactionClient) => void;
    const held = new Promise<PgliteTransactionClient>((resolve) => (opened = resolve));
    const done = client.transaction(async (handle) => {
      opened(handle);
      if (!(await finished)) throw ROLLBACK;
    });
    const settled = done.catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
    // BEGIN itself may fail: then the transaction never opens and `done` says why
    const handle = await Promise.race([held, settled.then(() => Promise.reject(new Error('the transaction did not open')))]);
    open.set(`${worker}:${tx}`, { tx: handle, finish, done: settled });
    return tx;
  }

  async function end(worker: number, tx: number, commit: boolean): Promise<void> {
    const key = `${worker}:${tx}`;
    const held = open.get(key);
    if (!held) throw new Error(`transaction ${tx} is not open`);
    open.delete(key);
    held.finish(commit);
    await held.done;
  }

  return {
    async handle(worker, request) {
      switch (request.op) {
        case 'query': {
          const parsers = Object.fromEntries(request.identityTypes.map((type) => [type, (value: unknown) => value]));
          return target(worker, request.tx).query(request.sql, request.params, { rowMode: request.rowMode, parsers });
        }
        case 'exec':
          return target(worker, request.tx).exec(request.sql);
        case 'prepared':
          return client.execPrepared({ name: request.name, text: request.text, parameterTypes: request.parameterTypes }, request.params);
        case 'begin':
          return begin(worker);
        case 'end':
          return end(worker, request.tx, request.commit);
      }
    },
    forget(worker) {
      for (const [key, held] of open) {
        if (!key.startsWith(`${worker}:`)) continue;
        open.delete(key);
        held.finish(false);
      }
    },
  };
}
