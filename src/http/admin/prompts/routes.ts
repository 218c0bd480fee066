/**
 * The Prompts group (api-surface §3.10): POST|GET /prompts, GET|PUT|DELETE /prompts/{promptId} (id or slug),
 * GET /prompts/{promptId}/versions (a bare array, as the reference answers), GET|PUT
 * /prompts/{promptId}/versions/{versionId}, PUT /prompts/{promptId}/makeDefault. Publishing (the default
 * version, label moves) needs `prompts.publish`. Every change drops the data plane's cached prompts on every node.
 */
import type { FastifyInstance } from 'fastify';
import { promptParam } from '../../../domain/prompts/access.ts';
import { createPrompt } from '../../../domain/prompts/create-prompt.ts';
import { listPromptsFor } from '../../../domain/prompts/list-prompts.ts';
import { deletePrompt, labelVersion, makeDefaultVersion } from '../../../domain/prompts/manage-prompt.ts';
import { promptAtVersion, promptVersions } from '../../../domain/prompts/read-versions.ts';
import { announcePromptChange } from '../../../domain/prompts/saved-prompts.ts';
import { updatePrompt } from '../../../domain/prompts/update-prompt.ts';
import { promptSummaryView, promptVersionSummaryView, promptView } from '../../../domain/prompts/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateCreatePrompt, validateLabelPromptVersion, validateMakeDefaultPromptVersion, validateUpdatePrompt } from './schemas.ts';

const RESOURCE = 'prompt';

export function registerPromptRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const changed = () => announcePromptChange(deps.kv);

  app.post('/v1/prompts', adminRoute(deps, { action: 'prompts.create', resourceType: RESOURCE, scope: 'prompts.create', mutation: true }, async (ctx) => {
    const { prompt, version } = await createPrompt(ctx.db, ctx.principal, validateCreatePrompt(ctx.request.body));
    // a slug looked up before it existed is cached as unknown on every node
    const body = { id: prompt.id, slug: prompt.slug, version_id: version.id, object: 'prompt' };
    return { body, resourceId: prompt.id, workspaceId: prompt.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/prompts', adminRoute(deps, { action: 'prompts.list', resourceType: RESOURCE, scope: 'prompts.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 1000 });
    const filter = { collectionId: optionalString(query, 'collection_id'), workspace: optionalString(query, 'workspace_id'), search: optionalString(query, 'search') };
    const { total, rows } = await listPromptsFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(promptSummaryView)) };
  }));

  app.get('/v1/prompts/:promptId', adminRoute(deps, { action: 'prompts.read', resourceType: RESOURCE, scope: 'prompts.read', mutation: false }, async (ctx) => {
    const { prompt, version } = await promptAtVersion(ctx.db, ctx.principal, promptParam(ctx.request.params));
    return { body: promptView(prompt, version), resourceId: prompt.id, workspaceId: prompt.workspaceId };
  }));

  app.put('/v1/prompts/:promptId', adminRoute(deps, { action: 'prompts.update', resourceType: RESOURCE, scope: 'prompts.update', mutation: true }, async (ctx) => {
    const idOrSlug = promptParam(ctx.request.params);
    const { prompt, version } = await updatePrompt(ctx.db, ctx.principal, idOrSlug, validateUpdatePrompt(ctx.request.body));
    const body = { id: prompt.id, slug: prompt.slug, prompt_version_id: version.id };
    return { body, resourceId: prompt.id, workspaceId: prompt.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/prompts/:promptId', adminRoute(deps, { action: 'prompts.delete', resourceType: RESOURCE, scope: 'prompts.delete', mutation: true }, async (ctx) => {
    const prompt = await deletePrompt(ctx.db, ctx.principal, promptParam(ctx.request.params));
    return { body: {}, resourceId: prompt.id, workspaceId: prompt.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/prompts/:promptId/versions', adminRoute(deps, { action: 'prompts.read', resourceType: RESOURCE, scope: 'prompts.read', mutation: false }, async (ctx) => {
    const { prompt, versions } = await promptVersions(ctx.db, ctx.principal, promptParam(ctx.request.params));
    // a bare array: the reference's quirk (api-surface §6.5), kept so its clients read it unchanged
    return { body: versions.map(promptVersionSummaryView), resourceId: prompt.id, workspaceId: prompt.workspaceId };
  }));

  app.get('/v1/prompts/:promptId/versions/:versionId', adminRoute(deps, { action: 'prompts.read', resourceType: RESOURCE, scope: 'prompts.read', mutation: false }, async (ctx) => {
    const versionId = uuidParam(ctx.request.params, 'versionId');
    const { prompt, version } = await promptAtVersion(ctx.db, ctx.principal, promptParam(ctx.request.params), versionId);
    return { body: promptView(prompt, version), resourceId: prompt.id, workspaceId: prompt.workspaceId };
  }));

  app.put('/v1/prompts/:promptId/versions/:versionId', adminRoute(deps, { action: 'prompts.publish', resourceType: RESOURCE, scope: 'prompts.publish', mutation: true }, async (ctx) => {
    const versionId = uuidParam(ctx.request.params, 'versionId');
    const idOrSlug = promptParam(ctx.request.params);
    const { label_id: labelId } = validateLabelPromptVersion(ctx.request.body);
    const prompt = await labelVersion(ctx.db, ctx.principal, idOrSlug, versionId, labelId);
    return { body: {}, resourceId: prompt.id, workspaceId: prompt.workspaceId, afterCommit: changed };
  }));

  app.put('/v1/prompts/:promptId/makeDefault', adminRoute(deps, { action: 'prompts.publish', resourceType: RESOURCE, scope: 'prompts.publish', mutation: true }, async (ctx) => {
    const idOrSlug = promptParam(ctx.request.params);
    const { version } = validateMakeDefaultPromptVersion(ctx.request.body);
    const prompt = await makeDefaultVersion(ctx.db, ctx.principal, idOrSlug, version);
    return { body: {}, resourceId: prompt.id, workspaceId: prompt.workspaceId, afterCommit: changed };
  }));
}
