/** Assembles the Fastify app from its dependencies: plugins and routes, no logic. */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AuthInvalidation } from './auth/invalidation.ts';
import type { KvStore } from './kv/store.ts';
import type { RequestLogWriter } from './logging/request-log.ts';
import type { SecretCipher } from './secrets/cipher.ts';
import type { Metrics } from './metrics/metrics.ts';
import { cloudSettingsOf, type ProviderRegistry } from './providers/registry.ts';
import type { Database } from './storage/database.ts';
import type { UpstreamClient } from './upstream/client.ts';
import type { Allowlist, LookupAll } from './upstream/ssrf-guard.ts';
import './http/types.ts';
import { createCheckedHostCache } from './pipeline/resolve-target.ts';
import { createResponseCache } from './cache/response-cache.ts';
import { createSemanticCaches } from './cache/semantic/semantic-caches.ts';
import { createCheckRegistry } from './guardrails/registry.ts';
import { createSavedGuardrails } from './domain/guardrails/saved-guardrails.ts';
import { createSavedConfigs } from './domain/configs/saved-configs.ts';
import { createWorkspaceDefaults } from './domain/workspaces/request-defaults.ts';
import { registerAdminRoutes } from './http/admin/index.ts';
import { cloudHeaderPrefixes } from './http/parse-gateway-headers.ts';
import { registerAuth, type CredentialResolver } from './http/plugins/auth.ts';
import { registerBodyParsers } from './http/plugins/body-parsers.ts';
import { registerErrorHandling } from './http/plugins/errors.ts';
import { registerRequestLog } from './http/plugins/request-log.ts';
import { errorAnswerOptions, registerServerAnswers } from './http/plugins/server-answers.ts';
import { registerInferenceRoutes } from './http/routes/inference.ts';
import { registerModelsRoute } from './http/routes/models.ts';
import { registerOpenApiRoute } from './http/routes/openapi.ts';
import { registerOperationsRoutes } from './http/routes/operations.ts';
import { registerProxyRoutes } from './http/routes/proxy.ts';

export interface AppDeps {
  database: Database;
  kv: KvStore;
  /** API key or JWT -> principal */
  credentials: CredentialResolver;
  invalidation: AuthInvalidation;
  /** ORGANISATION_HEADERS_TO_MASK */
  headersToMask: readonly string[];
  now?: () => Date;
  registry: ProviderRegistry;
  upstream: UpstreamClient;
  allowlist: Allowlist;
  metrics: Metrics;
  /** seals secrets at rest (GATEWAY_ENCRYPTION_KEY or the data dir's key) */
  secrets: SecretCipher;
  /** where each inference request's row goes (batched off the request path) */
  requestLog: RequestLogWriter;
  logger?: Logger;
  lookup?: LookupAll;
  newTraceId?: () => string;
  /** largest request body accepted, in bytes */
  bodyLimit?: number;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    // per-request access lines are the request log's job, written off the hot path
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit ?? 50 * 1024 * 1024,
    // parser, router and shutdown answers in the error shape (server-answers.ts)
    ...errorAnswerOptions,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
  }) as unknown as FastifyInstance;
  app.decorateRequest('gateway', undefined);
  registerBodyParsers(app);
  registerErrorHandling(app);
  registerServerAnswers(app);
  registerAuth(app, deps.credentials);
  // after auth (a row needs the caller's organisation), before the routes it hooks onto
  const clock = deps.now;
  registerRequestLog(app, { writer: deps.requestLog, now: clock ? () => clock().getTime() : Date.now, newId: randomUUID });

  // guardrail checks: the webhook check honours the same SSRF allowlist as custom hosts
  const checkRegistry = createCheckRegistry({ allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  app.addHook('onClose', () => checkRegistry.close());
  const savedGuardrails = await createSavedGuardrails(deps.database.db, deps.kv);
  app.addHook('onClose', () => savedGuardrails.close());
  // saved configs are checked against the same providers as x-gateway-config
  const configRules = {
    isKnownProvider: (name: string) => deps.registry.has(name),
    servesEmbeddings: (name: string) => deps.registry.get(name)?.capabilities.routes.has('embeddings') === true,
  };
  const savedConfigs = await createSavedConfigs(deps.database.db, deps.kv, { parse: configRules, secrets: deps.secrets });
  app.addHook('onClose', () => savedConfigs.close());
  const workspaceDefaults = await createWorkspaceDefaults(deps.database.db, deps.kv);
  app.addHook('onClose', () => workspaceDefaults.close());
  // semantic cache indexes, kept in step across nodes over the kv store's pub/sub
  const semantic = await createSemanticCaches({ kv: deps.kv, nodeId: randomUUID(), log: app.log });
  app.addHook('onClose', () => semantic.close());
  const forwardDeps = {
    checks: checkRegistry,
    savedGuardrails,
    savedConfigs,
    workspaceDefaults,
    responses: createResponseCache({ kv: deps.kv }),
    semantic,
    registry: deps.registry,
    allowlist: deps.allowlist,
    upstream: deps.upstream,
    newTraceId: deps.newTraceId ?? randomUUID,
    cloudHeaderPrefixes: cloudHeaderPrefixes(cloudSettingsOf(deps.registry)),
    checkedHosts: createCheckedHostCache(),
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  };
  registerOperationsRoutes(app, deps);
  registerOpenApiRoute(app);
  registerAdminRoutes(app, {
    database: deps.database,
    kv: deps.kv,
    invalidation: deps.invalidation,
    headersToMask: deps.headersToMask,
    now: deps.now ?? (() => new Date()),
    checkRegistry,
    configRules,
    savedConfigs,
    secrets: deps.secrets,
  });
  registerInferenceRoutes(app, forwardDeps);
  registerModelsRoute(app, forwardDeps);
  registerProxyRoutes(app, forwardDeps);
  return app;
}
