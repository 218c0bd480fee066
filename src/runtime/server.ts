/**
 * One server process: build the gateway, listen, and stop gracefully. Runs alone (GATEWAY_WORKERS=1) or as a
 * cluster worker, where the embedded database and the in-process store are the primary's (reached over IPC) and
 * /metrics answers every worker's sum.
 */
import cluster from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
// loaded with the gateway anyway (its /metrics); a dynamic import() of this CommonJS package would lose its named
// exports in the bundle (scripts/build.mjs)
import { AggregatorRegistry } from 'prom-client';
import type { GatewayConfig } from '../config/index.ts';
import type { Gateway, GatewayOverrides } from '../gateway.ts';
import { compileRemaining } from '../core/schemas/compile-on-first-use.ts';
import { beginDraining } from '../http/routes/operations.ts';
import { prestartDatabase } from '../storage/database.ts';
import { releaseMemoryWhenIdle } from './idle-memory.ts';

export async function runServer(config: GatewayConfig): Promise<void> {
  const inCluster = cluster.isWorker;
  // the embedded database's thread compiles and opens PGlite while the rest of the gateway loads (start-up time)
  if (!inCluster) prestartDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  const [{ createGateway }, { createLogger }] = await Promise.all([import('../gateway.ts'), import('./log-destination.ts')]);
  const logger = createLogger(config);
  const shared = inCluster ? await clusterOverrides(config) : undefined;
  const gateway = await createGateway(config, { logger, collectDefaultMetrics: true, ...shared?.overrides }).catch((error: unknown) => {
    // e.g. a database schema newer than this gateway (storage/migrate.ts): said plainly on stderr, then exit 1
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, `the gateway cannot start: ${message}`);
    logger.flush();
    process.stderr.write(`the gateway cannot start: ${message}\n`);
    process.exit(1);
  });
  shared?.adopt(gateway);

  if (gateway.bootstrap.generatedAdminKey) {
    // Printed once, on the first start only: only its hash is stored.
    process.stdout.write(
      `\nGenerated the organisation owner's admin API key (shown once, store it now):\n\n  ${gateway.bootstrap.generatedAdminKey}\n\n`,
    );
  }
  if (config.databaseUrl && gateway.encryptionKeySource !== 'env' && !inCluster) {
    // every node reading this database must seal and open secrets with the same key
    logger.warn({ dataDir: config.dataDir }, 'DATABASE_URL is set but GATEWAY_ENCRYPTION_KEY is not: secrets are sealed with this node\'s generated key; give every node the same GATEWAY_ENCRYPTION_KEY');
  }

  await gateway.app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port, host: config.host, database: gateway.database.kind, kv: gateway.kv.kind, pid: process.pid }, 'gateway listening');
  // the body schemas no request has needed yet, compiled between requests: a route's first request need not wait for its own
  void compileRemaining().then((failed) => {
    for (const error of failed) logger.error({ err: error }, 'a body schema does not compile: its route answers 500');
  });

  // idle after work: the heap given back at once rather than when V8 gets to it (runtime/idle-memory.ts)
  if (config.idleMemoryMs > 0) {
    const onCollect = (details: object) => logger.info(details, 'idle: the heap collected, memory given back');
    releaseMemoryWhenIdle({ idleMs: config.idleMemoryMs, onCollect });
  }

  let stopping = false;
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stopping) {
      // a cluster worker hears both its primary and the signal sent to the whole process group: one shutdown
      if (inCluster) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    shutDown(gateway, config, signal, logger).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
  shared?.onShutdown(() => stop('SIGTERM'));
}

/**
 * Graceful shutdown, in this order: /ready answers 503 at once (a load balancer stops sending new requests) for
 * GATEWAY_SHUTDOWN_DRAIN_MS; then the server stops accepting and the requests and streams in flight finish, for up
 * to GATEWAY_SHUTDOWN_TIMEOUT_MS (past it their connections are cut); then Gateway.close writes the request log's
 * queue and closes the stores; then the process exits. SIGINT (Ctrl-C) skips the drain delay; a second signal
 * exits at once.
 */
async function shutDown(gateway: Gateway, config: GatewayConfig, signal: 'SIGINT' | 'SIGTERM', logger: Logger): Promise<void> {
  const { drainMs, timeoutMs } = config.shutdown;
  const delay = signal === 'SIGTERM' ? drainMs : 0;
  beginDraining(gateway.app);
  logger.info({ signal, drainMs: delay, timeoutMs }, 'shutting down: /ready answers 503');
  if (delay > 0) await sleep(delay);
  logger.info('shutting down: no new connections; waiting for the requests in flight');
  // past the deadline, the connections still open are cut: app.close() (inside gateway.close()) then returns
  const deadline = setTimeout(() => {
    logger.warn({ timeoutMs }, 'shutting down: requests still in flight at the deadline, closing their connections');
    gateway.app.server.closeAllConnections();
  }, timeoutMs);
  deadline.unref();
  // a keep-alive connection whose request finishes after the close began would otherwise hold the server open
  // until its idle timeout: close such connections as they turn idle
  const idle = setInterval(() => gateway.app.server.closeIdleConnections(), 100);
  idle.unref();
  try {
    await gateway.close(); // stops accepting, waits for in-flight requests, flushes the request log, closes stores
  } finally {
    clearTimeout(deadline);
    clearInterval(idle);
  }
  logger.info('shut down');
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
}

/** A cluster worker's shared parts: the primary's embedded database and store when no external one is set. */
async function clusterOverrides(config: GatewayConfig): Promise<{
  overrides: GatewayOverrides;
  adopt(gateway: Gateway): void;
  onShutdown(listener: () => void): void;
}> {
  const [{ createWorkerChannel }, { createWorkerDatabaseClient }, { createWorkerKvStore }, { embeddedDatabaseOver }] = await Promise.all([
    import('./cluster/worker-channel.ts'),
    import('./cluster/worker-database.ts'),
    import('./cluster/worker-kv.ts'),
    import('../storage/database.ts'),
  ]);
  const channel = createWorkerChannel();
  // constructing one is what makes prom-client answer the primary's requests in this process: from the start, so a
  // scrape while this worker starts is not left waiting for it
  void new AggregatorRegistry();
  const overrides: GatewayOverrides = {
    metricsText: async () => (await channel.request({ gw: 'metrics' })) as string,
  };
  if (!config.databaseUrl) overrides.database = await embeddedDatabaseOver(createWorkerDatabaseClient(channel));
  if (!config.redisUrl) overrides.kv = createWorkerKvStore(channel);
  return {
    overrides,
    // the primary's aggregation asks each worker for this registry's metrics (prom-client's cluster messages)
    adopt: (gateway) => AggregatorRegistry.setRegistries([gateway.metricsRegistry]),
    onShutdown: (listener) => channel.events.once('shutdown', listener),
  };
}
