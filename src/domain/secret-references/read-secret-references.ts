/** GET /secret-references and GET /secret-references/{id}: what the caller may see (access.ts), never a value. */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { listSecretReferences, type SecretReferenceRow } from '../../storage/repositories/secret-references.ts';
import { visibleScope, visibleSecretReference } from './access.ts';
import { maskedAuthConfig } from './auth-config.ts';
import type { ListSecretReferencesInput } from './inputs.ts';
import { openSource } from './sealed-source.ts';

const MAX_TAG_TERMS = 20;

/** `team:ml,owner` -> [['team', 'ml'], ['owner', undefined]]: a key with a value, or a key that is present. */
export function parseTagsFilter(text: string): Array<[string, string | undefined]> {
  const terms = text.split(',').map((term) => term.trim()).filter((term) => term.length > 0);
  if (terms.length === 0 || terms.length > MAX_TAG_TERMS) {
    throw invalidParam('tags', `tags must be 1 to ${MAX_TAG_TERMS} comma-separated terms, each key or key:value.`);
  }
  return terms.map((term) => {
    const colon = term.indexOf(':');
    const key = colon < 0 ? term : term.slice(0, colon);
    if (key.length === 0) throw invalidParam('tags', 'tags: each term is key or key:value, with a key.');
    return [key, colon < 0 ? undefined : term.slice(colon + 1)];
  });
}

export async function listSecretReferencesFor(
  db: Db,
  principal: Principal,
  filter: ListSecretReferencesInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: SecretReferenceRow[] }> {
  const tags = filter.tags === undefined ? undefined : parseTagsFilter(filter.tags);
  const scope = visibleScope(principal);
  if (scope === undefined) return { total: 0, rows: [] };
  return listSecretReferences(db, {
    organisationId: principal.organisationId,
    managerType: filter.managerType,
    tags,
    search: filter.search,
    usableByWorkspace: scope === 'all' ? undefined : scope.workspaceId,
  }, page);
}

export interface SecretReferenceDetail {
  row: SecretReferenceRow;
  /** auth_config with every secret masked */
  authConfig: Record<string, unknown>;
  /** the workspaces listed, as far as the caller may know them (a workspace key: its own, if listed) */
  allowedWorkspaces: string[];
}

export async function readSecretReference(db: Db, principal: Principal, idOrSlug: string, cipher: SecretCipher): Promise<SecretReferenceDetail> {
  const row = await visibleSecretReference(db, principal, idOrSlug);
  const scope = visibleScope(principal);
  const allowedWorkspaces = scope === 'all' ? row.allowedWorkspaces : row.allowedWorkspaces.filter((id) => scope !== undefined && id === scope.workspaceId);
  return { row, authConfig: maskedAuthConfig(openSource(cipher, row).auth), allowedWorkspaces };
}
