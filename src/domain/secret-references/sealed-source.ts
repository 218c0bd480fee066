/**
 * A reference's auth_config (with a `sealed` reference's value) is sealed as one JSON text with the gateway's
 * cipher (src/secrets/cipher.ts) before it reaches the database, and opened only to fetch a value or to show the
 * masked view. `env` references hold no credentials: nothing is sealed.
 */
import type { SecretCipher } from '../../secrets/cipher.ts';
import { MANAGER_TYPES, type ManagerType, type SecretSource } from '../../secrets/managers/types.ts';
import type { SecretReferenceRow } from '../../storage/repositories/secret-references.ts';

export function sealSource(cipher: SecretCipher, source: SecretSource): string | null {
  return Object.keys(source.auth).length === 0 ? null : cipher.seal(JSON.stringify(source.auth));
}

export function openSource(cipher: SecretCipher, row: Pick<SecretReferenceRow, 'managerType' | 'sealedAuthConfig'>): SecretSource {
  const managerType = row.managerType as ManagerType;
  if (!MANAGER_TYPES.includes(managerType)) throw new Error(`a secret reference has an unknown manager type: ${row.managerType}`);
  const auth: unknown = row.sealedAuthConfig === null ? {} : JSON.parse(cipher.open(row.sealedAuthConfig));
  // written by parseAuthConfig for this manager type, then sealed: an altered row fails to open instead
  return { managerType, auth } as SecretSource;
}
