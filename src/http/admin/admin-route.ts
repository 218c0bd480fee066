/**
 * Every admin route runs through `adminRoute`: scope check, then the use case; a state-changing call runs in one
 * transaction together with its audit record, so a change is never kept without its record (nor a record without
 * its change). Denied and failed attempts are recorded too, in a transaction of their own.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInvalidation } from '../../auth/invalidation.ts';
import { requireScope } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { GatewayError, invalidParam, unauthorized } from '../../core/errors.ts';
import { maskHeaders, maskSecrets } from '../../secrets/mask.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { KvStore } from '../../kv/store.ts';
import type { ExhaustionCheck } from '../../domain/providers/status.ts';
import type { InlineExhaustionCheck } from '../../limits/budgets-inline.ts';
import type { ParseConfigOptions } from '../../routing/config-schema.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { Allowlist, LookupAll } from '../../upstream/ssrf-guard.ts';
import type { Database, Db } from '../../storage/database.ts';
import { insertAuditLog } from '../../storage/repositories/audit-logs.ts';
import { nulCharacterPath } from '../json-value-rules.ts';

export interface AdminDeps {
  database: Database;
  kv: KvStore;
  invalidation: AuthInvalidation;
  headersToMask: readonly string[];
  now: () => Date;
  /** validates guardrail check lists (built with the SSRF allowlist); the guardrail routes make their own when absent */
  checkRegistry?: CheckRegistry;
  /** seals the credentials of saved configs at rest */
  secrets: SecretCipher;
  /** the providers an integration may name, with the settings each reads; every built-in provider when absent */
  providerRegistry?: ProviderRegistry;
  /** GATEWAY_CUSTOM_HOST_ALLOWLIST and the resolver, for an integration's custom host; nothing allowlisted when absent */
  customHosts?: { allowlist: Allowlist; lookup?: LookupAll | undefined };
  /** what a saved config is checked against (the providers the registry knows); every built-in provider when absent */
  configRules?: ParseConfigOptions;
  /** this node's saved-config cache: dropped at once on a change (the other nodes hear it over pub/sub) */
  savedConfigs?: { invalidate(): Promise<void> };
  /** this node's usage limits policies: dropped at once on a change (the other nodes hear it over pub/sub) */
  usagePolicies?: { invalidate(): Promise<void> };
  /** whether a provider's usage limit is used up (its status reads `exhausted`): the budgets' counters */
  providerExhausted?: ExhaustionCheck;
  /** whether an API key's usage limit is used up (its status reads `exhausted`): the budgets' counters */
  inlineExhausted?: InlineExhaustionCheck;
}

export interface AdminContext {
  principal: Principal;
  /** the transaction of a state-changing call; the database otherwise */
  db: Db;
  deps: AdminDeps;
  request: FastifyRequest;
}

export interface AdminResult {
  body?: unknown;
  status?: number;
  resourceId?: string | null;
  workspaceId?: string | null;
  /** runs after the commit: cache invalidation and other side effects */
  afterCommit?: () => Promise<void>;
}

export interface AdminOperation {
  /** e.g. `api_keys.create` */
  action: string;
  resourceType: string;
  /** the scope the caller's key must hold; omitted when the use case checks a scope that depends on the resource */
  scope?: string;
  /** state-changing: runs in a transaction and is always audited */
  mutation: boolean;
}

function auditRow(ctx: { principal: Principal; request: FastifyRequest; deps: AdminDeps }, operation: AdminOperation, outcome: {
  status: number;
  resourceId?: string | null;
  workspaceId?: string | null;
}) {
  const { principal, request } = ctx;
  const url = request.raw.url ?? request.url;
  const queryStart = url.indexOf('?');
  return {
    organisationId: principal.organisationId,
    workspaceId: outcome.workspaceId ?? (principal.keyType === 'workspace' ? principal.workspaceId : null),
    timestamp: ctx.deps.now(),
    userType: principal.kind === 'jwt' || principal.subType === 'user' ? 'user' : 'api_key',
    userId: principal.userId,
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : null,
    action: operation.action,
    resourceType: operation.resourceType,
    resourceId: outcome.resourceId ?? null,
    method: request.method,
    uri: queryStart >= 0 ? url.slice(0, queryStart) : url,
    requestId: String(request.id),
    requestBody: request.body === undefined ? null : JSON.stringify(maskSecrets(request.body)),
    queryParams: queryStart >= 0 ? url.slice(queryStart + 1) : null,
    requestHeaders: JSON.stringify(maskHeaders(request.headers as Record<string, unknown>, ctx.deps.headersToMask)),
    clientIp: request.ip,
    responseStatusCode: outcome.status,
    outcome: outcome.status < 400 ? 'success' : outcome.status === 401 || outcome.status === 403 ? 'denied' : 'failed',
  };
}

/**
 * PostgreSQL refuses a NUL character in text: a NUL in any body field, query filter or path parameter would be a
 * 500 from the database, so every admin route refuses it first, naming the field.
 */
export function refuseNulCharacters(request: FastifyRequest): void {
  for (const [part, fallback] of [[request.body, 'body'], [request.query, 'query'], [request.params, 'path']] as const) {
    const path = nulCharacterPath(part);
    if (path === undefined) continue;
    const param = path === '' ? fallback : path;
    throw invalidParam(param, `${param} must not contain a NUL character (\\u0000).`, 'nul_character');
  }
}

export function adminRoute(
  deps: AdminDeps,
  operation: AdminOperation,
  handler: (ctx: AdminContext) => Promise<AdminResult>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  return async (request, reply) => {
    const principal = request.principal;
    if (!principal) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
    const base = { principal, request, deps };
    let result: AdminResult;
    try {
      if (operation.scope) requireScope(principal, operation.scope);
      refuseNulCharacters(request);
      if (operation.mutation) {
        result = await deps.database.db.transaction(async (tx) => {
          const done = await handler({ ...base, db: tx });
          await insertAuditLog(tx, auditRow(base, operation, { status: done.status ?? 200, resourceId: done.resourceId ?? null, workspaceId: done.workspaceId ?? null }));
          return done;
        });
      } else {
        result = await handler({ ...base, db: deps.database.db });
      }
    } catch (error) {
      const status = error instanceof GatewayError ? error.status : 500;
      if (operation.mutation || status === 403) {
        await insertAuditLog(deps.database.db, auditRow(base, operation, { status })).catch((auditError: unknown) => {
          request.log.error({ err: auditError }, 'could not write the audit record of a failed admin call');
        });
      }
      throw error;
    }
    if (result.afterCommit) await result.afterCommit();
    reply.code(result.status ?? 200);
    return result.body === undefined ? reply.send() : result.body;
  };
}
