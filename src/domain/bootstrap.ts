/**
 * First start: make sure the organisation, its default workspace and an owner's admin key exist.
 * Idempotent: a restart (or a second node starting at once) finds them and changes nothing.
 */
import { sql } from 'drizzle-orm';
import { ALL_SCOPES } from '../auth/scopes.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../auth/secrets.ts';
import type { Db } from '../storage/database.ts';
import { countOrganisationKeys, findApiKeyByHash, insertApiKey } from '../storage/repositories/api-keys.ts';
import {
  defaultWorkspace,
  firstOrganisation,
  insertOrganisation,
  insertWorkspace,
  type OrganisationRow,
  type WorkspaceRow,
} from '../storage/repositories/organisations.ts';

const BOOTSTRAP_LOCK_ID = 0x626f6f74; // "boot"

export interface BootstrapResult {
  organisation: OrganisationRow;
  workspace: WorkspaceRow;
  /** set only when this start generated the admin key: the one time its secret is known */
  generatedAdminKey?: string;
}

export async function bootstrap(db: Db, options: { adminApiKey?: string | undefined }): Promise<BootstrapResult> {
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
        name: 'Bootstrap admin key',
        description: 'Created at start-up for the organisation owner',
        keyHash: hashApiKey(secret),
        maskedKey: maskApiKey(secret),
        scopes: [...ALL_SCOPES],
        role: 'owner',
        createdBy: 'bootstrap',
      });
    }
    return { organisation, workspace, ...(generated && secret ? { generatedAdminKey: secret } : {}) };
  });
}
