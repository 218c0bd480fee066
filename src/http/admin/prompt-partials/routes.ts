/**
 * The PromptPartials group (api-surface §3.11) under /prompts/partials: its static segment wins over the prompts'
 * `/prompts/{promptId}` in the router, so `partials` is never read as a prompt id.
 */
import type { FastifyInstance } from 'fastify';
import { partialParam } from '../../../domain/prompt-partials/access.ts';
import { createPartial } from '../../../domain/prompt-partials/create-partial.ts';
import { listPartialsFor, listVersionsOf } from '../../../domain/prompt-partials/list-partials.ts';
import { deletePartial, makePartialDefault, readPartial, updatePartial } from '../../../domain/prompt-partials/manage-partial.ts';
import { announcePromptChange } from '../../../domain/prompts/saved-prompts.ts';
import { partialSummaryView, partialVersionView, partialView } from '../../../domain/prompt-partials/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { optionalString } from '../params.ts';
import { validateCreatePartial, validateMakePartialDefault, validateUpdatePartial } from './schemas.ts';

const RESOURCE = 'prompt_partial';
const BASE = '/v1/prompts/partials';

export function registerPromptPartialRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // prompts hold their partials' default versions in each node's cache (domain/prompts/saved-prompts.ts)
  const promptsChanged = () => announcePromptChange(deps.kv);
  app.post(BASE, adminRoute(deps, { action: 'prompt_partials.create', resourceType: RESOURCE, scope: 'prompt_partials.create', mutation: true }, async (ctx) => {
    const { partial, version } = await createPartial(ctx.db, ctx.principal, validateCreatePartial(ctx.request.body));
    return { body: { id: partial.id, slug: partial.slug, version_id: version.id }, resourceId: partial.id, workspaceId: partial.workspaceId };
  }));

  // a bare array (api-surface §6.5)
  app.get(BASE, adminRoute(deps, { action: 'prompt_partials.list', resourceType: RESOURCE, scope: 'prompt_partials.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const rows = await listPartialsFor(ctx.db, ctx.principal, { collection: optionalString(query, 'collection_id'), workspace: optionalString(query, 'workspace_id') });
    return { body: rows.map(partialSummaryView) };
  }));

  app.get(`${BASE}/:promptPartialId`, adminRoute(deps, { action: 'prompt_partials.read', resourceType: RESOURCE, scope: 'prompt_partials.read', mutation: false }, async (ctx) => {
    const { partial, version } = await readPartial(ctx.db, ctx.principal, partialParam(ctx.request.params));
    return { body: partialView(partial, version), resourceId: partial.id, workspaceId: partial.workspaceId };
  }));

  app.put(`${BASE}/:promptPartialId`, adminRoute(deps, { action: 'prompt_partials.update', resourceType: RESOURCE, scope: 'prompt_partials.update', mutation: true }, async (ctx) => {
    const idOrSlug = partialParam(ctx.request.params);
    const { partial, versionId } = await updatePartial(ctx.db, ctx.principal, idOrSlug, validateUpdatePartial(ctx.request.body));
    return { body: { prompt_partial_version_id: versionId }, resourceId: partial.id, workspaceId: partial.workspaceId, afterCommit: promptsChanged };
  }));

  app.delete(`${BASE}/:promptPartialId`, adminRoute(deps, { action: 'prompt_partials.delete', resourceType: RESOURCE, scope: 'prompt_partials.delete', mutation: true }, async (ctx) => {
    const partial = await deletePartial(ctx.db, ctx.principal, partialParam(ctx.request.params));
    return { body: {}, resourceId: partial.id, workspaceId: partial.workspaceId, afterCommit: promptsChanged };
  }));

  // a bare array, newest first (api-surface §6.5)
  app.get(`${BASE}/:promptPartialId/versions`, adminRoute(deps, { action: 'prompt_partials.read', resourceType: RESOURCE, scope: 'prompt_partials.read', mutation: false }, async (ctx) => {
    const { partial, versions } = await listVersionsOf(ctx.db, ctx.principal, partialParam(ctx.request.params));
    return { body: versions.map((version) => partialVersionView(partial, version)), resourceId: partial.id, workspaceId: partial.workspaceId };
  }));

  app.put(`${BASE}/:promptPartialId/makeDefault`, adminRoute(deps, { action: 'prompt_partials.make_default', resourceType: RESOURCE, scope: 'prompt_partials.update', mutation: true }, async (ctx) => {
    const idOrSlug = partialParam(ctx.request.params);
    const { version } = validateMakePartialDefault(ctx.request.body);
    const partial = await makePartialDefault(ctx.db, ctx.principal, idOrSlug, version);
    return { body: {}, resourceId: partial.id, workspaceId: partial.workspaceId, afterCommit: promptsChanged };
  }));
}
