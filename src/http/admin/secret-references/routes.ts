/**
 * The Secret references group (api-surface §3.17): GET|POST /secret-references, GET|PUT|DELETE
 * /secret-references/{secretReferenceId} (id or slug). Writes need an admin key; a workspace key reads the
 * references its workspace may use. A read shows the reference, never the value.
 */
import type { FastifyInstance } from 'fastify';
import { secretReferenceParam } from '../../../domain/secret-references/access.ts';
import { announceSecretReferenceChange } from '../../../domain/secret-references/changes.ts';
import { createSecretReference } from '../../../domain/secret-references/create-secret-reference.ts';
import { deleteSecretReference, updateSecretReference } from '../../../domain/secret-references/manage-secret-reference.ts';
import { listSecretReferencesFor, readSecretReference } from '../../../domain/secret-references/read-secret-references.ts';
import {
  secretReferenceCreatedView,
  secretReferenceDetailView,
  secretReferenceSummaryView,
} from '../../../domain/secret-references/views.ts';
import { MANAGER_TYPES } from '../../../secrets/managers/types.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams } from '../params.ts';
import { takeBodyForAudit } from './audit-body.ts';
import { validateCreateSecretReference, validateUpdateSecretReference } from './schemas.ts';

const RESOURCE = 'secret_reference';

export function registerSecretReferenceRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // every change drops the cached rows on every node (the resolver's), a create too: an unknown slug is cached
  const announce = () => announceSecretReferenceChange(deps.kv);

  app.get('/v1/secret-references', adminRoute(deps, { action: 'secret_references.list', resourceType: RESOURCE, scope: 'secret_references.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 20, maxSize: 100 });
    const filter = {
      managerType: optionalEnum(query, 'manager_type', MANAGER_TYPES),
      tags: optionalString(query, 'tags', 1024),
      search: optionalString(query, 'search', 255),
    };
    const { total, rows } = await listSecretReferencesFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(secretReferenceSummaryView)) };
  }));

  app.post('/v1/secret-references', adminRoute(deps, { action: 'secret_references.create', resourceType: RESOURCE, scope: 'secret_references.create', mutation: true }, async (ctx) => {
    const body = validateCreateSecretReference(takeBodyForAudit(ctx.request));
    const row = await createSecretReference(ctx.db, ctx.principal, body, deps.secrets);
    return { body: secretReferenceCreatedView(row), resourceId: row.id, afterCommit: announce };
  }));

  app.get('/v1/secret-references/:secretReferenceId', adminRoute(deps, { action: 'secret_references.read', resourceType: RESOURCE, scope: 'secret_references.read', mutation: false }, async (ctx) => {
    const detail = await readSecretReference(ctx.db, ctx.principal, secretReferenceParam(ctx.request.params), deps.secrets);
    return { body: secretReferenceDetailView(detail), resourceId: detail.row.id };
  }));

  app.put('/v1/secret-references/:secretReferenceId', adminRoute(deps, { action: 'secret_references.update', resourceType: RESOURCE, scope: 'secret_references.update', mutation: true }, async (ctx) => {
    const raw = takeBodyForAudit(ctx.request);
    const idOrSlug = secretReferenceParam(ctx.request.params);
    const row = await updateSecretReference(ctx.db, ctx.principal, idOrSlug, validateUpdateSecretReference(raw), deps.secrets);
    return { body: {}, resourceId: row.id, afterCommit: announce };
  }));

  app.delete('/v1/secret-references/:secretReferenceId', adminRoute(deps, { action: 'secret_references.delete', resourceType: RESOURCE, scope: 'secret_references.delete', mutation: true }, async (ctx) => {
    const row = await deleteSecretReference(ctx.db, ctx.principal, secretReferenceParam(ctx.request.params));
    return { body: {}, resourceId: row.id, afterCommit: announce };
  }));
}
