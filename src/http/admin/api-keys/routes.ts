/** The API keys group: POST /api-keys/{type}/{sub-type}, GET /api-keys, GET|PUT|DELETE /api-keys/{id}, POST /api-keys/{id}/rotate. */
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../../domain/api-keys/create-api-key.ts';
import { listKeysFor } from '../../../domain/api-keys/list-api-keys.ts';
import { deleteKey, findKeyFor, rotateKey, updateKey } from '../../../domain/api-keys/manage-api-key.ts';
import { keyStatus, neverExhausted } from '../../../domain/api-keys/usage.ts';
import { apiKeyView } from '../../../domain/api-keys/view.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateCreateApiKey, validateRotateApiKey, validateUpdateApiKey } from './schemas.ts';

const RESOURCE = 'api_key';

export function registerApiKeyRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // a key reads `exhausted` while its usage limit is used up (the budgets' counters)
  const isExhausted = deps.inlineExhausted ?? neverExhausted;

  app.post('/v1/api-keys/:type/:subType', adminRoute(deps, { action: 'api_keys.create', resourceType: RESOURCE, mutation: true }, async (ctx) => {
    const params = ctx.request.params as { type: string; subType: string };
    const body = validateCreateApiKey(ctx.request.body);
    const created = await createApiKey(ctx.db, ctx.principal, params, body, deps.now());
    return { body: { id: created.id, key: created.key, object: 'api-key' }, resourceId: created.id, workspaceId: created.workspaceId };
  }));

  app.get('/v1/api-keys', adminRoute(deps, { action: 'api_keys.list', resourceType: RESOURCE, mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 50, maxSize: 100 });
    const { total, rows } = await listKeysFor(ctx.db, ctx.principal, { workspace: optionalString(ctx.request.query, 'workspace_id') }, page);
    return { body: listBody(total, await Promise.all(rows.map(async (row) => apiKeyView(row, await keyStatus(row, isExhausted))))) };
  }));

  app.get('/v1/api-keys/:id', adminRoute(deps, { action: 'api_keys.read', resourceType: RESOURCE, mutation: false }, async (ctx) => {
    const row = await findKeyFor(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'id'), 'read');
    return { body: apiKeyView(row, await keyStatus(row, isExhausted)), resourceId: row.id };
  }));

  app.put('/v1/api-keys/:id', adminRoute(deps, { action: 'api_keys.update', resourceType: RESOURCE, mutation: true }, async (ctx) => {
    const id = uuidParam(ctx.request.params, 'id');
    const body = validateUpdateApiKey(ctx.request.body);
    const { row, invalidate } = await updateKey(ctx.db, deps.kv, ctx.principal, id, body, deps.now());
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: () => deps.invalidation.invalidate(invalidate) };
  }));

  app.delete('/v1/api-keys/:id', adminRoute(deps, { action: 'api_keys.delete', resourceType: RESOURCE, mutation: true }, async (ctx) => {
    const { row, invalidate } = await deleteKey(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'id'));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: () => deps.invalidation.invalidate(invalidate) };
  }));

  app.post('/v1/api-keys/:id/rotate', adminRoute(deps, { action: 'api_keys.rotate', resourceType: RESOURCE, mutation: true }, async (ctx) => {
    const body = validateRotateApiKey(ctx.request.body ?? {});
    const rotated = await rotateKey(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'id'), body, deps.now());
    return {
      body: { id: rotated.id, key: rotated.key, key_transition_expires_at: rotated.transitionEnds.toISOString() },
      resourceId: rotated.id,
      workspaceId: rotated.workspaceId,
      afterCommit: () => deps.invalidation.invalidate(rotated.invalidate),
    };
  }));
}
