/** Updates and deletes a secret reference (admin keys only). */
import type { Principal } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import {
  deleteSecretReferenceRow,
  secretReferenceUsers,
  updateSecretReferenceRow,
  type SecretReferenceRow,
} from '../../storage/repositories/secret-references.ts';
import { managedSecretReference } from './access.ts';
import { parseAuthConfig } from './auth-config.ts';
import type { UpdateSecretReferenceInput } from './inputs.ts';
import { openSource, sealSource } from './sealed-source.ts';
import { checkSecretPath } from './secret-path.ts';
import { workspaceAccess } from './workspace-access.ts';

const gone = (idOrSlug: string) => notFound(`Secret reference "${idOrSlug}" not found.`, 'secret_reference_not_found');

/**
 * A PUT changes what it names. auth_config is replaced as a whole, for the reference's manager type (which does
 * not change: a new manager is a new reference); a secret field sent back as the mask keeps its stored value.
 */
export async function updateSecretReference(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateSecretReferenceInput,
  cipher: SecretCipher,
): Promise<SecretReferenceRow> {
  const row = await managedSecretReference(db, principal, idOrSlug, 'update');
  const stored = openSource(cipher, row);
  const source = body.auth_config === undefined ? undefined : parseAuthConfig(stored.managerType, body.auth_config, stored);
  const secretPath = body.secret_path === undefined ? undefined : checkSecretPath(stored.managerType, body.secret_path);
  const access = await workspaceAccess(db, principal.organisationId, body, row);
  const updated = await updateSecretReferenceRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(source !== undefined ? { sealedAuthConfig: sealSource(cipher, source) } : {}),
    ...(secretPath !== undefined ? { secretPath } : {}),
    ...(body.secret_key !== undefined ? { secretKey: body.secret_key } : {}),
    ...(body.tags !== undefined ? { tags: body.tags } : {}),
    ...access,
  });
  if (!updated) throw gone(idOrSlug);
  return updated;
}

/** DELETE removes the row, unless an integration or provider still maps a secret to it (a 400 naming them). */
export async function deleteSecretReference(db: Db, principal: Principal, idOrSlug: string): Promise<SecretReferenceRow> {
  const row = await managedSecretReference(db, principal, idOrSlug, 'delete');
  const users = await secretReferenceUsers(db, row);
  const named = [...users.integrations.map((slug) => `integration ${slug}`), ...users.providers.map((slug) => `provider @${slug}`)];
  if (named.length > 0) {
    throw badRequest(`Secret reference "${row.slug}" is in use by ${named.join(', ')}: remove those secret_mappings first.`, 'secret_reference_in_use');
  }
  if (!(await deleteSecretReferenceRow(db, row.id))) throw gone(idOrSlug);
  return row;
}
