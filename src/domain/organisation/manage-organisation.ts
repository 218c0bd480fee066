/**
 * The organisation's settings (admin keys of owners and admins, per the seed's operation table): its name and
 * the JWT settings (JWKS URL, issuer, audience) that let its users' tokens stand in for API keys.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import { jwtSettingsOf } from '../../auth/jwt-resolver.ts';
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getOrganisation, updateOrganisationRow, type OrganisationRow } from '../../storage/repositories/organisations.ts';
import type { UpdateOrganisationInput } from './inputs.ts';

async function callerOrganisation(db: Db, principal: Principal): Promise<OrganisationRow> {
  const organisation = await getOrganisation(db, principal.organisationId);
  if (!organisation) throw notFound('Organisation not found.');
  return organisation;
}

export async function readOrganisation(db: Db, principal: Principal): Promise<OrganisationRow> {
  requireAdminKey(principal, 'read the organisation settings');
  return callerOrganisation(db, principal);
}

/** The caller invalidates every cached credential after the commit: the JWT settings decide which tokens verify. */
export async function updateOrganisation(db: Db, principal: Principal, input: UpdateOrganisationInput, now: Date): Promise<OrganisationRow> {
  requireAdminKey(principal, 'change the organisation settings');
  const organisation = await callerOrganisation(db, principal);
  const settings = { ...organisation.settings };
  if (input.settings && 'jwt' in input.settings) settings.jwt = input.settings.jwt ?? undefined;
  const updated = await updateOrganisationRow(db, organisation.id, { ...(input.name ? { name: input.name } : {}), settings, updatedAt: now });
  return updated ?? organisation;
}

/** The organisation as the admin API shows it. */
export function organisationView(row: OrganisationRow) {
  return {
    object: 'organisation' as const,
    id: row.id,
    name: row.name,
    slug: row.slug,
    settings: { jwt: jwtSettingsOf(row.settings) ?? null },
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}
