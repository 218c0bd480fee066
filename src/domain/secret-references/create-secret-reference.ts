/**
 * Creates a secret reference (admin keys only). auth_config is checked for the manager type and sealed; the value
 * itself is never fetched here (a reference may be saved before the secret exists). A taken slug is a 409.
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { insertSecretReference, secretReferenceSlugTaken, type SecretReferenceRow } from '../../storage/repositories/secret-references.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { chooseSlug, prefixedSlug } from '../slugs.ts';
import { actorId, requireSecretReferenceAdmin } from './access.ts';
import { parseAuthConfig } from './auth-config.ts';
import type { CreateSecretReferenceInput } from './inputs.ts';
import { sealSource } from './sealed-source.ts';
import { checkSecretPath } from './secret-path.ts';
import { workspaceAccess } from './workspace-access.ts';

export async function createSecretReference(
  db: Db,
  principal: Principal,
  body: CreateSecretReferenceInput,
  cipher: SecretCipher,
): Promise<SecretReferenceRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  requireSecretReferenceAdmin(principal, 'create');
  const source = parseAuthConfig(body.manager_type, body.auth_config);
  const secretPath = checkSecretPath(body.manager_type, body.secret_path);
  const access = await workspaceAccess(db, principal.organisationId, body);
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => prefixedSlug('sr', body.name, 10, 'secret'),
    taken: (candidate) => secretReferenceSlugTaken(db, principal.organisationId, candidate),
    resource: 'a secret reference',
    conflictCode: 'secret_reference_slug_taken',
  });
  try {
    return await insertSecretReference(db, {
      organisationId: principal.organisationId,
      slug,
      name: body.name,
      description: body.description ?? null,
      managerType: body.manager_type,
      sealedAuthConfig: sealSource(cipher, source),
      secretPath,
      secretKey: body.secret_key ?? null,
      ...access,
      tags: body.tags ?? null,
      createdBy: actorId(principal),
    });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A secret reference with slug "${slug}" already exists.`, 'secret_reference_slug_taken');
    throw error;
  }
}
