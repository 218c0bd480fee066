/** Process entry: read the config, build the gateway, listen; stop cleanly on SIGINT/SIGTERM. */
import { loadConfig } from './config/index.ts';
import { createGateway, createLogger } from './gateway.ts';

const config = loadConfig();
const logger = createLogger(config);
const gateway = await createGateway(config, { logger, collectDefaultMetrics: true });

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

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
