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
import { mappedValues } from './domain/secret-references/mapping-values.ts';
import { createSecretMappingResolver } from './domain/secret-references/resolve.ts';
import { createSavedProviders } from './domain/providers/saved-providers.ts';
import { isProviderReference } from './domain/providers/slug.ts';
import { createWorkspaceDefaults } from './domain/workspaces/request-defaults.ts';
import { createPriceBook } from './domain/model-pricing/price-book.ts';
import { applyLimitHeaders } from './limits/limit-error.ts';
import { createRateLimits } from './pipeline/steps/rate-limits.ts';
import type { Budgets } from './limits/budgets-service.ts';
import { providerExhaustion } from './pipeline/steps/budgets.ts';
import { inlineExhaustion } from './limits/budgets-inline.ts';
import { registerAdminRoutes } from './http/admin/index.ts';
import { cloudHeaderPrefixes } from './http/parse-gateway-headers.ts';
import { registerAuth, type CredentialResolver } from './http/plugins/auth.ts';
import { registerBodyParsers } from './http/plugins/body-parsers.ts';
import { registerErrorHandling } from './http/plugins/errors.ts';
import type { RequestObserver } from './logging/observer.ts';
import { DEFAULT_BODY_CAP } from './logging/log-bodies.ts';
import { registerRequestLog } from './http/plugins/request-log.ts';
import { errorAnswerOptions, registerServerAnswers } from './http/plugins/server-answers.ts';
import { registerInferenceRoutes } from './http/routes/inference.ts';
import { registerMessagesKeyHeader, registerMessagesRoutes } from './http/routes/messages.ts';
import { registerModelsRoute } from './http/routes/models.ts';
import { registerModelPricingRoute } from './http/routes/model-pricing.ts';
import { registerOpenApiRoute } from './http/routes/openapi.ts';
import { registerConsoleRoutes } from './http/routes/console.ts';
import { registerLogDownloadRoute } from './http/routes/log-downloads.ts';
import { registerOperationsRoutes } from './http/routes/operations.ts';
import { registerProxyRoutes } from './http/routes/proxy.ts';
import { registerPromptCompletionRoutes } from './http/routes/prompt-completions.ts';
import { registerFilesBatchesRoutes } from './http/routes/files-batches/index.ts';
import { registerRealtimeRoute } from './http/realtime/routes.ts';
import { registerMcpKeyHeader, registerMcpRoutes } from './http/routes/mcp.ts';
import { createResponsesRuntime } from './responses/runtime.ts';

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
  /** the text /metrics answers; this app's own registry when absent (a cluster worker asks the primary for every worker's sum) */
  metricsText?: () => Promise<string>;
  /** each logged request or response body is cut at this many bytes (GATEWAY_LOG_BODY_MAX_BYTES); 0 logs none */
  logBodyMaxBytes?: number;
  /** metrics and traces of each finished request (src/logging/observer.ts) */
  requestObservers?: readonly RequestObserver[];
  /** usage limits: reservations in the counter store, policies held in process, entities written off the request path */
  budgets: Budgets;
  logger?: Logger;
  lookup?: LookupAll;
  newTraceId?: () => string;
  /** largest request body accepted, in bytes */
  bodyLimit?: number;
  /** how long responses the gateway produced (Responses API over chat) are kept; 30 days by default */
  responsesTtlMs?: number;
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
  registerErrorHandling(app, { onStorageUnavailable: () => deps.metrics.storageUnavailable.inc() });
  // onError runs before the error handler renders the body: a limit's refusal gets its retry-after and x-ratelimit-*
  app.addHook('onError', (_request, reply, error, done) => {
    applyLimitHeaders(error, reply);
    done();
  });
  registerServerAnswers(app);
  // before auth: on the Messages routes the gateway key may come in x-api-key (http/routes/messages.ts)
  registerMessagesKeyHeader(app);
  registerMcpKeyHeader(app);
  registerAuth(app, deps.credentials);
  // after auth (a row needs the caller's organisation), before the routes it hooks onto
  const clock = deps.now;
  const requestLogDeps = { writer: deps.requestLog, now: clock ? () => clock().getTime() : Date.now, newId: randomUUID, headersToMask: deps.headersToMask, bodyCap: deps.logBodyMaxBytes ?? DEFAULT_BODY_CAP, ...(deps.requestObservers ? { observers: deps.requestObservers } : {}) };
  registerRequestLog(app, requestLogDeps);

  // guardrail checks: the webhook check honours the same SSRF allowlist as custom hosts
  const checkRegistry = createCheckRegistry({ allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  app.addHook('onClose', () => checkRegistry.close());
  const savedGuardrails = await createSavedGuardrails(deps.database.db, deps.kv);
  app.addHook('onClose', () => savedGuardrails.close());
  // saved configs are checked against the same providers as x-gateway-config
  const configRules = {
    // `provider: "@slug"` names a saved provider, resolved per request (pipeline/saved-provider-target.ts)
    isKnownProvider: (name: string) => isProviderReference(name) || deps.registry.has(name),
    servesEmbeddings: (name: string) => deps.registry.get(name)?.capabilities.routes.has('embeddings') === true,
  };
  const savedConfigs = await createSavedConfigs(deps.database.db, deps.kv, { parse: configRules, secrets: deps.secrets });
  app.addHook('onClose', () => savedConfigs.close());
  const workspaceDefaults = await createWorkspaceDefaults(deps.database.db, deps.kv);
  app.addHook('onClose', () => workspaceDefaults.close());
  // `@slug` and virtual keys: provider records with their opened credentials, held in process
  const savedProviders = await createSavedProviders(deps.database.db, deps.kv, { secrets: deps.secrets });
  app.addHook('onClose', () => savedProviders.close());
  // secret references: values fetched from their managers (through the SSRF guard), held in memory for a short TTL
  const secretReferences = await createSecretMappingResolver({
    db: deps.database.db, kv: deps.kv, cipher: deps.secrets, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}),
  });
  app.addHook('onClose', () => secretReferences.close());
  // model prices (custom, integration, catalog) held in process for the cost of each request
  const prices = await createPriceBook(deps.database.db, deps.kv);
  app.addHook('onClose', () => prices.close());
  const rateLimits = await createRateLimits({ db: deps.database.db, kv: deps.kv, metrics: deps.metrics, onStoreError: (error) => app.log.warn({ err: error }, 'rate limits: the counter store failed') });
  app.addHook('onClose', () => rateLimits.close());
  const budgets = deps.budgets;
  // a saved provider reads `exhausted` while its usage limit is used up: requests (429) and admin reads alike
  const providerExhausted = providerExhaustion(budgets);
  // semantic cache indexes, kept in step across nodes over the kv store's pub/sub
  const semantic = await createSemanticCaches({ kv: deps.kv, nodeId: randomUUID(), log: app.log });
  app.addHook('onClose', () => semantic.close());
  // the Responses API over chat for providers without it; the responses it produces kept in the kv store
  const responses = createResponsesRuntime({ kv: deps.kv, ...(deps.responsesTtlMs !== undefined ? { ttlMs: deps.responsesTtlMs } : {}) });
  const forwardDeps = {
    checks: checkRegistry,
    savedGuardrails,
    savedConfigs,
    workspaceDefaults,
    savedProviders,
    secretMappings: mappedValues(secretReferences),
    prices,
    rateLimits,
    budgets,
    providerExhausted,
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
  // the admin console's static files (dist/console), outside /v1 and without a key
  registerConsoleRoutes(app);
  // signed URLs of finished log exports: outside /v1, no key (the signature is the credential)
  registerLogDownloadRoute(app, { database: deps.database, secrets: deps.secrets, ...(deps.now ? { now: deps.now } : {}) });
  registerModelPricingRoute(app);
  registerAdminRoutes(app, {
    database: deps.database,
    kv: deps.kv,
    invalidation: deps.invalidation,
    headersToMask: deps.headersToMask,
    now: deps.now ?? (() => new Date()),
    checkRegistry,
    configRules,
    savedConfigs,
    usagePolicies: budgets.policies,
    providerExhausted,
    inlineExhausted: inlineExhaustion(budgets.engine),
    secrets: deps.secrets,
    providerRegistry: deps.registry,
    customHosts: { allowlist: deps.allowlist, lookup: deps.lookup },
  });
  registerInferenceRoutes(app, { ...forwardDeps, registry: responses.registry(deps.registry) }, responses);
  registerMessagesRoutes(app, forwardDeps);
  registerModelsRoute(app, forwardDeps);
  // GET /v1/realtime: the WebSocket relay (before the proxy's /v1/* wildcard would answer the plain GET)
  registerRealtimeRoute(app, { ...forwardDeps, credentials: deps.credentials, log: requestLogDeps });
  registerFilesBatchesRoutes(app, { ...forwardDeps, database: deps.database, now: deps.now });
  await registerPromptCompletionRoutes(app, forwardDeps, { db: deps.database.db, kv: deps.kv });
  registerMcpRoutes(app, { database: deps.database, secrets: deps.secrets, allowlist: deps.allowlist, lookup: deps.lookup, secretMappings: forwardDeps.secretMappings, log: requestLogDeps });
  registerProxyRoutes(app, forwardDeps);
  return app;
}
