/**
 * Builds a whole gateway from a config: storage (migrated, bootstrapped), key-value store, key resolver,
 * provider registry, upstream client and the HTTP app. main.ts and the tests both start gateways this way.
 */
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.ts';
import { createAuthInvalidation } from './auth/invalidation.ts';
import { createJwtVerifier, looksLikeJwt } from './auth/jwt.ts';
import { createJwtResolver } from './auth/jwt-resolver.ts';
import { createKeyResolver } from './auth/key-resolver.ts';
import type { GatewayConfig } from './config/index.ts';
import { bootstrap, type BootstrapResult } from './domain/bootstrap.ts';
import { scimSignIn } from './domain/scim/apply-scim-groups.ts';
import { openKvStore } from './kv/index.ts';
import type { KvStore } from './kv/store.ts';
import { createMetrics } from './metrics/metrics.ts';
import { createBudgets, type Budgets } from './limits/budgets-service.ts';
import { createRequestLogWriter, DISCARDING_WRITER, type RequestLogWriter } from './logging/request-log.ts';
import { openPostgresLogStore, scheduleLogMaintenance } from './logging/log-store.ts';
import { createProviderRegistry } from './providers/registry.ts';
import { openDatabase, type Database } from './storage/database.ts';
import { loggedIdleRestart } from './storage/pglite-worker/idle-restart.ts';
import { migrate } from './storage/migrate.ts';
import { createSecretCipher } from './secrets/cipher.ts';
import { loadEncryptionKey, type EncryptionKey } from './secrets/encryption-key.ts';
import type { Registry } from 'prom-client';
import { createUpstreamClient } from './upstream/client.ts';
import { parseAllowlist, type LookupAll } from './upstream/ssrf-guard.ts';

export interface Gateway {
  app: FastifyInstance;
  database: Database;
  kv: KvStore;
  bootstrap: BootstrapResult;
  /** where the key sealing secrets at rest came from (main.ts warns about a generated one on a shared database) */
  encryptionKeySource: EncryptionKey['source'];
  /** the request log's writer (tests call its flush() instead of waiting for a batch) */
  requestLog: RequestLogWriter;
  /** usage limits (tests call its flush() instead of waiting for the entity writer) */
  budgets: Budgets;
  /** the Prometheus registry (a cluster worker hands it to the primary's aggregation) */
  metricsRegistry: Registry;
  close(): Promise<void>;
}

export interface GatewayOverrides {
  logger?: Logger;
  /** PGlite data dir override (tests pass `memory://`) */
  pgliteDataDir?: string;
  /** an in-memory PGlite database starts from this dump instead of initdb (tests: one migrated dump per run) */
  pgliteSeed?: string;
  kv?: KvStore;
  /** an opened database (a cluster worker's embedded database, reached through the primary) */
  database?: Database;
  /** what /metrics answers (a cluster worker: every worker's metrics, summed by the primary) */
  metricsText?: () => Promise<string>;
  lookup?: LookupAll;
  collectDefaultMetrics?: boolean;
}

export async function createGateway(config: GatewayConfig, overrides: GatewayOverrides = {}): Promise<Gateway> {
  const allowlist = parseAllowlist(config.customHostAllowlist);
  // before the database opens: a malformed key stops the start, it never half-starts
  const encryptionKey = loadEncryptionKey(config.encryptionKey, config.dataDir, config.previousEncryptionKeys);
  const database =
    overrides.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: overrides.pgliteDataDir ?? config.dataDir,
      seed: overrides.pgliteSeed,
      idleRestart: loggedIdleRestart(config.idleMemoryMs, overrides.logger ?? pino({ level: 'silent' })),
    }));
  try {
    await migrate(database.db);
    const started = await bootstrap(database.db, { adminApiKey: config.adminApiKey, ownerEmail: config.ownerEmail });
    const kv = overrides.kv ?? openKvStore(config.redisUrl);
    const upstream = createUpstreamClient({ allowlist });
    const keys = createKeyResolver({ db: database.db });
    const verifier = createJwtVerifier({ allowlist });
    // `invalidation` is read when a sign-in runs, after it exists
    const tokens = createJwtResolver({ db: database.db, verifier, envJwksUrl: config.jwksUrl, groupSync: scimSignIn(database.db, () => invalidation.invalidate()) });
    const invalidation = await createAuthInvalidation(kv, [keys, tokens]);
    const metrics = createMetrics({ collectDefaults: overrides.collectDefaultMetrics ?? false });
    const logStore = await openPostgresLogStore(database, { retentionDays: config.requestLog.retentionDays });
    const logLogger = overrides.logger ?? pino({ level: 'silent' });
    // today's and the coming days' partitions exist before the first row is written; then hourly, with retention
    const logMaintenance = scheduleLogMaintenance(logStore, {
      onError: (error) => logLogger.error({ err: error }, 'request log: partition maintenance failed'),
      onReport: (report) => {
        if (report.skipped.length > 0) logLogger.warn({ days: report.skipped }, 'request log: rows of these days are in the default partition');
      },
    });
    await logMaintenance.ready;
    const logging = config.requestLog.enabled;
    // GATEWAY_REQUEST_LOG=off: rows are built (metrics and traces read them) and not kept
    const requestLog = logging
      ? createRequestLogWriter({
          prepare: (row) => logStore.prepare(row),
          insert: (rows) => logStore.insert(rows),
          release: (rows) => logStore.release(rows),
          logger: logLogger,
          dropped: metrics.requestLogDropped,
          maxQueue: config.requestLog.bufferRows,
          maxBytes: config.requestLog.bufferBytes,
          sizeOf: (row) => row.length,
        })
      : DISCARDING_WRITER;
    // gauges read when Prometheus scrapes
    metrics.runtime.watch({ requestLogPending: () => requestLog.pending, requestLogBytes: () => requestLog.queuedBytes, upstreamPools: () => upstream.poolStats?.() ?? [] });
    const traceLog = overrides.logger ?? pino({ level: 'silent' });
    // the OpenTelemetry SDK and exporter are loaded only when tracing is configured (memory, start-up)
    const tracing = config.tracing ? (await import('./tracing/tracing.ts')).createOtlpTracing(config.tracing, (error) => traceLog.warn({ err: error }, 'traces: a request\'s spans could not be made')) : undefined;
    const budgetLog = overrides.logger ?? pino({ level: 'silent' });
    const budgets = await createBudgets({ db: database.db, kv, metrics, onError: (error) => budgetLog.warn({ err: error }, 'budgets: the counter store or the database failed') });
    const app = await buildApp({
      database,
      kv,
      secrets: createSecretCipher(encryptionKey.key, encryptionKey.previous),
      credentials: (secret) => (looksLikeJwt(secret) ? tokens.resolve(secret) : keys.resolve(secret)),
      invalidation,
      headersToMask: config.headersToMask,
      registry: createProviderRegistry(),
      upstream,
      allowlist,
      metrics,
      requestLog,
      requestObservers: tracing ? [metrics.request.observe, tracing.observe] : [metrics.request.observe],
      logBodyMaxBytes: logging ? config.requestLog.bodyMaxBytes : 0,
      responsesTtlMs: config.responsesTtlMs,
      budgets,
      ...(overrides.metricsText ? { metricsText: overrides.metricsText } : {}),
      ...(overrides.logger ? { logger: overrides.logger } : {}),
      ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
    });
    return {
      app,
      database,
      kv,
      bootstrap: started,
      encryptionKeySource: encryptionKey.source,
      requestLog,
      budgets,
      metricsRegistry: metrics.registry,
      async close() {
        // close() closes the keep-alive connections that are idle when it starts; one whose response was still being
        // written then becomes idle later, and nothing would close it before its keep-alive timeout (72 s): sweep
        // the idle ones again until every connection is gone
        const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
        // every request has ended and made its spans: they are exported before the process goes
        await tracing?.close();
        // every request has ended: its settlement is written, then the entities it changed
        await budgets.close();
        // every request has ended: its row is queued, and must reach the database before it closes
        await requestLog.close();
        logMaintenance.stop();
        await invalidation.close();
        await verifier.close();
        await upstream.close();
        await kv.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
