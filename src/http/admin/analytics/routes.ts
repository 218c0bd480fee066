/**
 * The 23 analytics routes (api-surface §3.20): graphs, the cache summary and groups, all GET, scope
 * `analytics.view`, each taking the common filters (query.ts). Workspace keys read their own workspace; owners'
 * and admins' organisation keys any workspace of theirs (domain/analytics/scope.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../../core/context.ts';
import { invalidParam } from '../../../core/errors.ts';
import { apiKeysGroup, metadataGroup, modelsGroup, providersGroup, usersGroup } from '../../../domain/analytics/groups.ts';
import type { AnalyticsInput } from '../../../domain/analytics/inputs.ts';
import * as other from '../../../domain/analytics/other-graphs.ts';
import * as traffic from '../../../domain/analytics/traffic-graphs.ts';
import type { Db } from '../../../storage/database.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { pageParams } from '../params.ts';
import { analyticsInput } from './query.ts';

type Graph = (db: Db, principal: Principal, input: AnalyticsInput, now: Date) => Promise<unknown>;

/** path under /v1/analytics -> the use case */
export const ANALYTICS_GRAPHS: ReadonlyArray<readonly [string, Graph]> = [
  ['graphs/requests', traffic.requestsGraph],
  ['graphs/cost', traffic.costGraph],
  ['graphs/latency', other.latencyGraph],
  ['graphs/tokens', traffic.tokensGraph],
  ['graphs/users', other.usersGraph],
  ['graphs/users/requests', other.userRequestsGraph],
  ['graphs/errors', traffic.errorsGraph],
  ['graphs/errors/rate', traffic.errorRateGraph],
  ['graphs/errors/stacks', traffic.errorStacksGraph],
  ['graphs/errors/status-codes', traffic.errorStatusCodesGraph],
  ['graphs/requests/rescued', traffic.rescuedGraph],
  ['graphs/cache/hit-rate', traffic.cacheHitRateGraph],
  ['graphs/cache/latency', other.cacheLatencyGraph],
  ['graphs/feedbacks', other.feedbacksGraph],
  ['graphs/feedbacks/scores', other.feedbackScoresGraph],
  ['graphs/feedbacks/weighted', other.weightedFeedbackGraph],
  ['graphs/feedbacks/ai-models', other.feedbackModelsGraph],
  ['summary/cache', traffic.cacheSummary],
];

const OPERATION = { action: 'analytics.view', resourceType: 'analytics', scope: 'analytics.view', mutation: false } as const;
const PAGE = { defaultSize: 50, maxSize: 1000 };

function metadataKey(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.metadataKey;
  if (typeof value !== 'string' || value.length === 0 || value.length > 255) throw invalidParam('metadataKey', 'metadataKey must be 1 to 255 characters.');
  return value;
}

export function registerAnalyticsRoutes(app: FastifyInstance, deps: AdminDeps): void {
  for (const [path, graph] of ANALYTICS_GRAPHS) {
    app.get(`/v1/analytics/${path}`, adminRoute(deps, OPERATION, async (ctx) => ({
      body: await graph(ctx.db, ctx.principal, analyticsInput(ctx.request.query), deps.now()),
    })));
  }
  app.get('/v1/analytics/groups/users', adminRoute(deps, OPERATION, async (ctx) => ({
    body: await usersGroup(ctx.db, ctx.principal, analyticsInput(ctx.request.query), pageParams(ctx.request.query, PAGE), deps.now()),
  })));
  app.get('/v1/analytics/groups/ai-models', adminRoute(deps, OPERATION, async (ctx) => ({
    body: await modelsGroup(ctx.db, ctx.principal, analyticsInput(ctx.request.query), pageParams(ctx.request.query, PAGE), deps.now()),
  })));
  app.get('/v1/analytics/groups/providers', adminRoute(deps, OPERATION, async (ctx) => ({
    body: await providersGroup(ctx.db, ctx.principal, analyticsInput(ctx.request.query), pageParams(ctx.request.query, PAGE), deps.now()),
  })));
  app.get('/v1/analytics/groups/api-keys', adminRoute(deps, OPERATION, async (ctx) => ({
    body: await apiKeysGroup(ctx.db, ctx.principal, analyticsInput(ctx.request.query), pageParams(ctx.request.query, PAGE), deps.now()),
  })));
  app.get('/v1/analytics/groups/metadata/:metadataKey', adminRoute(deps, OPERATION, async (ctx) => {
    const key = metadataKey(ctx.request.params);
    return { body: await metadataGroup(ctx.db, ctx.principal, analyticsInput(ctx.request.query), key, pageParams(ctx.request.query, PAGE), deps.now()) };
  }));
}
