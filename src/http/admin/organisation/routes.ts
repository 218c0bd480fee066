/**
 * Organisation settings (admin keys only, per the seed's operation table): GET /admin/organisation and
 * PUT /admin/organisation, which holds the JWT settings (JWKS URL, issuer, audience).
 */
import type { FastifyInstance } from 'fastify';
import { organisationView, readOrganisation, updateOrganisation } from '../../../domain/organisation/manage-organisation.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { validateUpdateOrganisation } from './schemas.ts';

export function registerOrganisationRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/admin/organisation', adminRoute(deps, { action: 'organisations.read', resourceType: 'organisation', scope: 'organisations.read', mutation: false }, async (ctx) => {
    const organisation = await readOrganisation(ctx.db, ctx.principal);
    return { body: organisationView(organisation), resourceId: organisation.id };
  }));

  app.put('/v1/admin/organisation', adminRoute(deps, { action: 'organisations.update', resourceType: 'organisation', scope: 'organisations.update', mutation: true }, async (ctx) => {
    const body = validateUpdateOrganisation(ctx.request.body);
    const organisation = await updateOrganisation(ctx.db, ctx.principal, body, deps.now());
    return { body: {}, resourceId: organisation.id, afterCommit: () => deps.invalidation.invalidate() };
  }));
}
