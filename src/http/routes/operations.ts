/** Liveness, readiness and metrics: no auth, outside /v1. */
import type { FastifyInstance } from 'fastify';
import type { KvStore } from '../../kv/store.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Database } from '../../storage/database.ts';

/** Gateways shutting down (main.ts, on SIGTERM): their /ready answers 503 so a load balancer drains them. */
const draining = new WeakSet<FastifyInstance>();

/** Turns `app`'s /ready unready for good: the first step of a graceful shutdown. */
export function beginDraining(app: FastifyInstance): void {
  draining.add(app);
}

export function registerOperationsRoutes(app: FastifyInstance, deps: { database: Database; kv: KvStore; metrics: Metrics; metricsText?: (() => Promise<string>) | undefined }): void {
  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
    if (draining.has(app)) {
      reply.code(503);
      return { status: 'draining' };
    }
    // A service away is `degraded`, not unready: inference goes on with what each node holds (docs/operations.md),
    // and a balancer that took out every node whose Redis or database is away would turn the outage into a total one.
    // Only draining (a shutdown under way) takes a node out.
    const checks = await Promise.allSettled([deps.database.ping(), deps.kv.ping()]);
    const [database, kv] = checks.map((check) => (check.status === 'fulfilled' ? 'ok' : 'unreachable'));
    return { status: database === 'ok' && kv === 'ok' ? 'ready' : 'degraded', database, kv };
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', deps.metrics.registry.contentType);
    return deps.metricsText ? deps.metricsText() : deps.metrics.registry.metrics();
  });

  // a callback hook: an async one would cost a promise per request for synchronous work
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.requests.inc({ route, method: request.method, status: String(reply.statusCode) });
    deps.metrics.duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    done();
  });
}
