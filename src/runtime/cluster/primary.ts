/**
 * The cluster primary (GATEWAY_WORKERS > 1): forks the server processes, which share one port (node:cluster hands
 * connections round-robin), and owns what they must share when no external service is configured:
 * - the embedded database: one PGlite thread here; the workers' queries and transactions come over IPC, so no
 *   worker opens the files itself (database-host.ts);
 * - the key-value store (counters, cache entries, invalidation messages) when REDIS_URL is unset (kv-host.ts);
 * - /metrics: any worker asks, the primary sums every worker's registry (prom-client's AggregatorRegistry).
 * A worker that dies is replaced; one that dies before it ever listened stops the whole start (a bad setting or a
 * newer schema would only crash again). SIGTERM/SIGINT: every worker shuts down gracefully (runtime/server.ts), then
 * the primary closes the database and exits.
 */
import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { GatewayConfig } from '../../config/index.ts';
import { createMemoryStore } from '../../kv/memory-store.ts';
import { loadEncryptionKey } from '../../secrets/encryption-key.ts';
import { startEmbeddedDatabase } from '../../storage/database.ts';
import type { PgliteWorkerClient } from '../../storage/pglite-worker/client.ts';
import { loggedIdleRestart } from '../../storage/pglite-worker/idle-restart.ts';
import { createDatabaseHost, type DatabaseHost } from './database-host.ts';
import { createKvHost, type KvHost } from './kv-host.ts';
import { isClusterMessage, serializeError, type ClusterEvent, type ClusterRequest } from './protocol.ts';

/** A worker that keeps dying is not restarted forever: more than this many deaths in a minute stop the node. */
const MAX_RESTARTS_PER_MINUTE = 10;

export async function runPrimary(config: GatewayConfig): Promise<void> {
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false }));
  // generated on the first start into the data dir: made here once, so the workers do not race to write it
  loadEncryptionKey(config.encryptionKey, config.dataDir, config.previousEncryptionKeys);
  let client: PgliteWorkerClient | undefined;
  let stopIdleRestart = () => {};
  let database: DatabaseHost | undefined;
  if (!config.databaseUrl) {
    const embedded = await startEmbeddedDatabase(config.dataDir, loggedIdleRestart(config.idleMemoryMs, logger));
    client = embedded.client;
    stopIdleRestart = embedded.stop;
    database = createDatabaseHost(client);
  }
  const store = config.redisUrl ? undefined : createMemoryStore();
  const kv: KvHost | undefined = store ? createKvHost(store) : undefined;
  const aggregator = new AggregatorRegistry();

  cluster.setupPrimary({ serialization: 'advanced' });
  const listening = new Set<number>();
  const deaths: number[] = [];
  let stopping = false;

  const handle = async (worker: Worker, request: ClusterRequest): Promise<unknown> => {
    if (request.gw === 'db') {
      if (!database) throw new Error('this node has no embedded database (DATABASE_URL is set)');
      return database.handle(worker.id, request);
    }
    if (request.gw === 'kv') {
      if (!kv) throw new Error('this node has no in-process store (REDIS_URL is set)');
      return kv.handle(worker.id, request, (event: ClusterEvent) => send(worker, event));
    }
    return aggregator.clusterMetrics();
  };

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if (!isClusterMessage(message) || !('id' in message) || message.gw === 'reply') return;
      const request = message as ClusterRequest;
      handle(worker, request).then(
        (result) => send(worker, { gw: 'reply', id: request.id, result }),
        (error: unknown) => send(worker, { gw: 'reply', id: request.id, error: serializeError(error) }),
      );
    });
    worker.once('listening', () => listening.add(worker.id));
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    database?.forget(worker.id);
    void kv?.forget(worker.id);
    const wasListening = listening.delete(worker.id);
    if (stopping) return;
    if (!wasListening) {
      logger.fatal({ pid: worker.process.pid, code, signal }, 'a worker stopped before it listened: stopping the node');
      void stop(1);
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - 60_000) deaths.shift();
    if (deaths.length > MAX_RESTARTS_PER_MINUTE) {
      logger.fatal({ deaths: deaths.length }, 'workers keep dying: stopping the node');
      void stop(1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'a worker died: starting another');
    fork();
  });

  async function stop(exitCode: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    const exited = Promise.all(workers.map((worker) => new Promise<void>((resolve) => {
      if (worker.isDead()) resolve();
      else worker.once('exit', () => resolve());
    })));
    for (const worker of workers) send(worker, { gw: 'shutdown' });
    // each worker drains and stops on its own clock; past it (and a margin) it is killed
    const deadline = setTimeout(() => {
      for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
    }, config.shutdown.drainMs + config.shutdown.timeoutMs + 10_000);
    deadline.unref();
    await exited;
    clearTimeout(deadline);
    // every worker has flushed its request log through this database: only now is it closed
    stopIdleRestart();
    await client?.close();
    await store?.close();
    logger.info('cluster stopped');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(exitCode);
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'cluster shutting down');
      void stop(0);
    });
  }
  logger.info({ workers: config.workers, database: client ? 'pglite (owned by the primary)' : 'postgres', kv: store ? 'in-process (owned by the primary)' : 'redis' }, 'cluster primary starting its workers');
  for (let index = 0; index < config.workers; index += 1) fork();
}

function send(worker: Worker, message: unknown): void {
  if (!worker.isConnected()) return;
  worker.send(message as Parameters<Worker['send']>[0], undefined, (error: Error | null) => {
    // the worker went away between the check and the send: its exit handler cleans up
    void error;
  });
}
