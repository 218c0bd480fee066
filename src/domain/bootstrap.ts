/**
 * First start: make sure the organisation, its default workspace, its owner (a user) and the owner's admin key
 * exist. Idempotent: a restart (or a second node starting at once) finds them and changes nothing.
 */
import { sql } from 'drizzle-orm';
import { ALL_SCOPES } from '../auth/scopes.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../auth/secrets.ts';
import { DEFAULT_OWNER_EMAIL } from '../config/index.ts';
import type { Db } from '../storage/database.ts';
import { BOOTSTRAP_CREATOR, countOrganisationKeys, findApiKeyByHash, insertApiKey, linkBootstrapKeys } from '../storage/repositories/api-keys.ts';
import {
  defaultWorkspace,
  firstOrganisation,
  insertOrganisation,
  insertWorkspace,
  type OrganisationRow,
  type WorkspaceRow,
} from '../storage/repositories/organisations.ts';
import { findOwner, findUserByEmail, insertUser, setUserRole, type UserRow } from '../storage/repositories/users.ts';

const BOOTSTRAP_LOCK_ID = 0x626f6f74; // "boot"

export interface BootstrapResult {
  organisation: OrganisationRow;
  workspace: WorkspaceRow;
  /** the organisation owner: the user the bootstrap admin key acts for */
  owner: UserRow;
  /** set only when this start generated the admin key: the one time its secret is known */
  generatedAdminKey?: string;
}

export interface BootstrapOptions {
  adminApiKey?: string | undefined;
  /** the owner's email when no owner exists yet (config: GATEWAY_OWNER_EMAIL) */
  ownerEmail?: string | undefined;
}

/**
 * The owner there is (kept as it is, whatever `email` says now), else the user with `email` made owner (an
 * organisation from before owners were users may have invited them), else a new user.
 */
async function ensureOwner(tx: Db, organisationId: string, email: string): Promise<UserRow> {
  const owner = await findOwner(tx, organisationId);
  if (owner) return owner;
  const existing = await findUserByEmail(tx, organisationId, email);
  if (existing) return (await setUserRole(tx, existing.id, 'owner')) ?? existing;
  return insertUser(tx, { organisationId, email, role: 'owner' });
}

export async function bootstrap(db: Db, options: BootstrapOptions): Promise<BootstrapResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`);
    const organisation =
      (await firstOrganisation(tx)) ?? (await insertOrganisation(tx, { name: 'Default organisation', slug: 'default' }));
    const workspace =
      (await defaultWorkspace(tx, organisation.id)) ??
      (await insertWorkspace(tx, {
        organisationId: organisation.id,
        name: 'Default workspace',
        slug: 'default',
        isDefault: true,
      }));
    const owner = await ensureOwner(tx, organisation.id, (options.ownerEmail ?? DEFAULT_OWNER_EMAIL).toLowerCase());

    let secret: string | undefined;
    let generated = false;
    if (options.adminApiKey) {
      if (!(await findApiKeyByHash(tx, hashApiKey(options.adminApiKey)))) secret = options.adminApiKey;
    } else if ((await countOrganisationKeys(tx, organisation.id)) === 0) {
      secret = generateApiKeySecret();
      generated = true;
    }
    if (secret) {
      await insertApiKey(tx, {
        organisationId: organisation.id,
        type: 'organisation',
        subType: 'service',
        // a service key still: it acts with its stored owner role, but for the owner user (audit records, and the
        // user a workspace user key created with it belongs to when the body names none)
        userId: owner.id,
        name: 'Bootstrap admin key',
        description: 'Created at start-up for the organisation owner',
        keyHash: hashApiKey(secret),
        maskedKey: maskApiKey(secret),
        scopes: [...ALL_SCOPES],
        role: 'owner',
        createdBy: BOOTSTRAP_CREATOR,
      });
    }
    await linkBootstrapKeys(tx, organisation.id, owner.id);
    return { organisation, workspace, owner, ...(generated && secret ? { generatedAdminKey: secret } : {}) };
  });
}
