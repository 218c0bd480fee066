/** Process entry: read the config, build the gateway, listen; stop cleanly on SIGINT/SIGTERM. */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from './config/index.ts';
import { beginDraining } from './http/routes/operations.ts';
import { prestartDatabase } from './storage/database.ts';

const config = loadConfig();
// graceful shutdown (below): read before anything starts, so a bad value stops the start
const drainMs = msSetting('GATEWAY_SHUTDOWN_DRAIN_MS', 5_000);
const timeoutMs = msSetting('GATEWAY_SHUTDOWN_TIMEOUT_MS', 30_000);
// the embedded database's thread compiles and opens PGlite while the rest of the gateway loads (start-up time)
prestartDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
const { createGateway, createLogger } = await import('./gateway.ts');
const logger = createLogger(config);
const gateway = await createGateway(config, { logger, collectDefaultMetrics: true }).catch((error: unknown) => {
  // e.g. a database schema newer than this gateway (storage/migrate.ts): said plainly on stderr, then exit 1
  const message = error instanceof Error ? error.message : String(error);
  logger.fatal({ err: error }, `the gateway cannot start: ${message}`);
  logger.flush();
  process.stderr.write(`the gateway cannot start: ${message}\n`);
  process.exit(1);
});

if (gateway.bootstrap.generatedAdminKey) {
  // Printed once, on the first start only: only its hash is stored.
  process.stdout.write(
    `\nGenerated the organisation owner's admin API key (shown once, store it now):\n\n  ${gateway.bootstrap.generatedAdminKey}\n\n`,
  );
}

if (config.databaseUrl && gateway.encryptionKeySource !== 'env') {
  // every node reading this database must seal and open secrets with the same key
  logger.warn({ dataDir: config.dataDir }, 'DATABASE_URL is set but GATEWAY_ENCRYPTION_KEY is not: secrets are sealed with this node\'s generated key; give every node the same GATEWAY_ENCRYPTION_KEY');
}

await gateway.app.listen({ port: config.port, host: config.host });
logger.info({ port: config.port, host: config.host, database: gateway.database.kind, kv: gateway.kv.kind }, 'gateway listening');

/**
 * Graceful shutdown, in this order: /ready answers 503 at once (a load balancer stops sending new requests) for
 * GATEWAY_SHUTDOWN_DRAIN_MS; then the server stops accepting and the requests and streams in flight finish, for up
 * to GATEWAY_SHUTDOWN_TIMEOUT_MS (past it their connections are cut); then Gateway.close writes the request log's
 * queue and closes the stores; then the process exits. SIGINT (Ctrl-C) skips the drain delay; a second signal
 * exits at once.
 */

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    shutDown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

async function shutDown(signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
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

function msSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`${name} must be a whole number of milliseconds (0 or more), got ${JSON.stringify(raw)}\n`);
    process.exit(1);
  }
  return value;
}
