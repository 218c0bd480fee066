/**
 * A cluster worker's embedded database: the PGlite client interface Drizzle uses (query, exec, transaction), each
 * call a request to the primary, which owns the database (database-host.ts). A transaction holds the database from
 * `begin` to `end`: other workers' calls wait for it, as on PGlite's single connection.
 */
import type { PgliteTransactionClient, PgliteWorkerClient } from '../../storage/pglite-worker/client.ts';
import { joinedParameter } from '../../storage/extended-protocol.ts';
import type { WorkerChannel } from './worker-channel.ts';

type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<string, unknown> };

export function createWorkerDatabaseClient(channel: WorkerChannel): PgliteWorkerClient {
  const on = (tx: number | undefined): PgliteTransactionClient => ({
    query: (sql, params = [], options: QueryOptions = {}) =>
      channel.request({
        gw: 'db',
        op: 'query',
        ...(tx === undefined ? {} : { tx }),
        sql,
        params,
        rowMode: options.rowMode ?? 'object',
        identityTypes: Object.keys(options.parsers ?? {}).map(Number),
      }),
    exec: (sql) => channel.request({ gw: 'db', op: 'exec', ...(tx === undefined ? {} : { tx }), sql }),
  });
  const outside = on(undefined);
  return {
    ...outside,
    async execPrepared(statement, params) {
      // one buffer a parameter over IPC: a chunk (a record in a slab) would take its whole slab with it
      await channel.request({ gw: 'db', op: 'prepared', name: statement.name, text: statement.text, parameterTypes: statement.parameterTypes, params: params.map(joinedParameter) });
    },
    async transaction(callback) {
      const tx = (await channel.request({ gw: 'db', op: 'begin' })) as number;
      let result;
      try {
        result = await callback(on(tx));
      } catch (error) {
        await channel.request({ gw: 'db', op: 'end', tx, commit: false }).catch(() => undefined);
        throw error;
      }
      await channel.request({ gw: 'db', op: 'end', tx, commit: true });
      return result;
    },
    // the primary owns the database and closes it once every worker has gone
    async close() {},
  };
}
