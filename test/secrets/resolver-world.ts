/**
 * What the secret manager tests share: a migrated database (PGlite, or a fresh PostgreSQL database) with the
 * bootstrap's organisation and workspace, an in-process kv store, a cipher, reference rows created through the
 * create use case (so auth_config is validated and sealed as the admin API would), and a resolver over them that
 * allows 127.0.0.1, where the fakes listen.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../src/core/context.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { createSecretReference } from '../../src/domain/secret-references/create-secret-reference.ts';
import type { CreateSecretReferenceInput } from '../../src/domain/secret-references/inputs.ts';
import { createSecretMappingResolver, type ClosableSecretMappingResolver, type SecretMappingResolverDeps } from '../../src/domain/secret-references/resolve.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import type { KvStore } from '../../src/kv/store.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';
import type { TestBackend } from '../helpers/databases.ts';

export const cipher = createSecretCipher(Buffer.alloc(32, 5));

export interface ResolverWorld {
  database: Database;
  kv: KvStore;
  organisationId: string;
  workspaceId: string;
  admin: Principal;
  /** creates a reference as an admin key would; returns its row */
  reference(body: Omit<CreateSecretReferenceInput, 'name'> & { name?: string }): ReturnType<typeof createSecretReference>;
  resolver(options?: Partial<SecretMappingResolverDeps>): Promise<ClosableSecretMappingResolver>;
  close(): Promise<void>;
}

export async function openResolverWorld(backend?: TestBackend): Promise<ResolverWorld> {
  const created = backend ? await backend.create() : { url: undefined, drop: async () => {} };
  const database = await openDatabase({ url: created.url, dataDir: 'memory://' });
  await migrate(database.db);
  const started = await bootstrap(database.db, {});
  const kv = createMemoryStore();
  const resolvers: ClosableSecretMappingResolver[] = [];
  const admin: Principal = {
    kind: 'api_key', keyId: randomUUID(), keyHash: '', keyType: 'organisation', subType: 'service',
    organisationId: started.organisation.id, workspaceId: started.workspace.id, scopes: [],
    orgRole: 'owner', workspaceRole: null, userId: null, expiresAt: null,
  };
  return {
    database,
    kv,
    organisationId: started.organisation.id,
    workspaceId: started.workspace.id,
    admin,
    reference: (body) => createSecretReference(database.db, admin, { name: 'Test secret', ...body }, cipher),
    async resolver(options = {}) {
      const resolver = await createSecretMappingResolver({ db: database.db, kv, cipher, allowlist: parseAllowlist(['127.0.0.1']), ...options });
      resolvers.push(resolver);
      return resolver;
    },
    async close() {
      for (const resolver of resolvers) await resolver.close();
      await kv.close();
      await database.close();
      await created.drop();
    },
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<{ status: number; body: { error: { message: string; type: string; code: string | null; param: string | null } } }> {
  try {
    await promise;
  } catch (error) {
    const gatewayError = error as { status?: number; toBody?: () => { error: { message: string; type: string; code: string | null; param: string | null } } };
    if (typeof gatewayError.toBody !== 'function' || gatewayError.status === undefined) throw error;
    return { status: gatewayError.status, body: gatewayError.toBody() };
  }
  throw new Error('expected a rejection, got a value');
}
