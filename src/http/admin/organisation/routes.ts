/**
 * Organisation settings (admin keys only, per the seed's operation table): GET /admin/organisation and
 * PUT /admin/organisation, which holds the JWT settings (JWKS URL, issuer, audience).
 */
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requireAdminKey } from '../../../auth/authorize.ts';
import { jwtSettingsOf } from '../../../auth/jwt-resolver.ts';
import { invalidParam, notFound } from '../../../core/errors.ts';
import { organisations } from '../../../storage/schema.ts';
import { makeValidator } from '../../schemas/validate.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';

const JwtSettingsSchema = Type.Object(
  {
    jwks_url: Type.String({ minLength: 1, maxLength: 2048 }),
    issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

const validateUpdate = makeValidator(
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      settings: Type.Optional(Type.Object({ jwt: Type.Optional(Type.Union([JwtSettingsSchema, Type.Null()])) }, { additionalProperties: false })),
    },
    { additionalProperties: false },
  ),
  (body) => {
    const url = body.settings?.jwt?.jwks_url;
    if (url !== undefined && !/^https?:\/\//.test(url)) throw invalidParam('settings.jwt.jwks_url', 'settings.jwt.jwks_url must be an http(s) URL.');
  },
);

export function registerOrganisationRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/admin/organisation', adminRoute(deps, { action: 'organisations.read', resourceType: 'organisation', scope: 'organisations.read', mutation: false }, async (ctx) => {
    requireAdminKey(ctx.principal, 'read the organisation settings');
    const rows = await ctx.db.select().from(organisations).where(eq(organisations.id, ctx.principal.organisationId)).limit(1);
    const organisation = rows[0];
    if (!organisation) throw notFound('Organisation not found.');
    return {
      body: {
        object: 'organisation',
        id: organisation.id,
        name: organisation.name,
        slug: organisation.slug,
        settings: { jwt: jwtSettingsOf(organisation.settings) ?? null },
        created_at: organisation.createdAt.toISOString(),
        last_updated_at: organisation.updatedAt.toISOString(),
      },
      resourceId: organisation.id,
    };
  }));

  app.put('/v1/admin/organisation', adminRoute(deps, { action: 'organisations.update', resourceType: 'organisation', scope: 'organisations.update', mutation: true }, async (ctx) => {
    requireAdminKey(ctx.principal, 'change the organisation settings');
    const body = validateUpdate(ctx.request.body);
    const rows = await ctx.db.select().from(organisations).where(eq(organisations.id, ctx.principal.organisationId)).limit(1);
    const organisation = rows[0];
    if (!organisation) throw notFound('Organisation not found.');
    const settings = { ...organisation.settings };
    if (body.settings && 'jwt' in body.settings) settings.jwt = body.settings.jwt ?? undefined;
    await ctx.db
      .update(organisations)
      .set({ ...(body.name ? { name: body.name } : {}), settings, updatedAt: deps.now() })
      .where(eq(organisations.id, organisation.id));
    return { body: {}, resourceId: organisation.id, afterCommit: () => deps.invalidation.invalidate() };
  }));
}
