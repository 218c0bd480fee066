/**
 * API key -> Principal resolution against a migrated, bootstrapped database (PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set). Time-based behaviour (expiry, cache ttls) runs on an injected clock, never on sleeps.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createKeyResolver, type KeyResolverOptions } from '../src/auth/key-resolver.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../src/auth/secrets.ts';
import type { Principal } from '../src/core/context.ts';
import { bootstrap, type BootstrapResult } from '../src/domain/bootstrap.ts';
import { openDatabase, type Database, type Db } from '../src/storage/database.ts';
import { migrate } from '../src/storage/migrate.ts';
import { insertApiKey, type ApiKeyRow, type NewApiKeyRow } from '../src/storage/repositories/api-keys.ts';
import { insertWorkspace, type WorkspaceRow } from '../src/storage/repositories/organisations.ts';
import { apiKeys } from '../src/storage/schema.ts';
import { testBackends } from './helpers/databases.ts';

const ADMIN_KEY = 'key-resolver-admin-key-0123456789abcdef';

/** A clock the test moves by hand; starts at the real time so database timestamps compare sensibly. */
function manualClock() {
  let current = Date.now();
  return {
    now: () => current,
    advance(ms: number) {
      current += ms;
    },
    get current() {
      return current;
    },
  };
}

/** Wraps a Db and counts the queries started through it (every repository query begins with select()). */
function countingDb(db: Db): { db: Db; selects: () => number } {
  let selects = 0;
  const wrapped = new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'select') selects += 1;
      return Reflect.get(target, property, receiver);
    },
  });
  return { db: wrapped, selects: () => selects };
}

/**
 * Wraps a Db so every query runs at once but its result is handed over only after `release()`; `loaded` resolves
 * when the first result has arrived (so the test knows what the database said at that moment).
 */
function heldDb(db: Db): { db: Db; loaded: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let markLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => (markLoaded = resolve));
  const wrap = <T extends object>(value: T): T =>
    new Proxy(value, {
      get(target, property) {
        const member: unknown = Reflect.get(target, property, target);
        if (typeof member !== 'function') return member;
        if (property === 'then') {
          return (onResolved: (v: unknown) => unknown, onRejected: (e: unknown) => unknown) =>
            (member as Function).call(
              target,
              (result: unknown) => {
                markLoaded();
                return gate.then(() => onResolved(result));
              },
              onRejected,
            );
        }
        return (...args: unknown[]) => {
          const result: unknown = (member as Function).apply(target, args);
          return result !== null && typeof result === 'object' ? wrap(result) : result;
        };
      },
    });
  return { db: wrap(db), loaded, release };
}

for (const backend of testBackends()) {
  describe(`key resolver on ${backend.name}`, () => {
    let dropDatabase: () => Promise<void> = async () => {};
    let database: Database | undefined;
    let db: Db;
    let boot: BootstrapResult;
    /** a second, non-default workspace of the organisation */
    let otherWorkspace: WorkspaceRow;

    before(async () => {
      const created = await backend.create();
      dropDatabase = created.drop;
      database = await openDatabase(created.url ? { url: created.url } : { dataDir: 'memory://' });
      db = database.db;
      await migrate(db);
      boot = await bootstrap(db, { adminApiKey: ADMIN_KEY });
      otherWorkspace = await insertWorkspace(db, {
        organisationId: boot.organisation.id,
        name: 'Team workspace',
        slug: `team-${randomUUID()}`,
      });
    });

    after(async () => {
      await database?.close();
      await dropDatabase();
    });

    function resolver(options: Partial<KeyResolverOptions> = {}) {
      return createKeyResolver({ db, ...options });
    }

    /** inserts a workspace service key with a fresh secret */
    async function workspaceKey(
      overrides: Partial<NewApiKeyRow> = {},
    ): Promise<{ secret: string; hash: string; row: ApiKeyRow }> {
      const secret = generateApiKeySecret();
      const row = await insertApiKey(db, {
        organisationId: boot.organisation.id,
        workspaceId: otherWorkspace.id,
        type: 'workspace',
        subType: 'service',
        name: 'test key',
        keyHash: hashApiKey(secret),
        maskedKey: maskApiKey(secret),
        scopes: ['completions.write'],
        ...overrides,
      });
      return { secret, hash: hashApiKey(secret), row };
    }

    async function deleteKey(id: string): Promise<void> {
      const deleted = await db.delete(apiKeys).where(eq(apiKeys.id, id)).returning({ id: apiKeys.id });
      assert.equal(deleted.length, 1, 'the row was deleted');
    }

    test('the admin key resolves to an organisation principal in the default workspace', async () => {
      assert.equal(boot.workspace.isDefault, true);
      assert.notEqual(otherWorkspace.id, boot.workspace.id);
      const principal = await resolver().resolve(ADMIN_KEY);
      assert.ok(principal, 'the bootstrap admin key resolves');
      assert.equal(principal.keyType, 'organisation');
      assert.equal(principal.organisationId, boot.organisation.id);
      assert.equal(principal.workspaceId, boot.workspace.id, 'admin keys act in the default workspace');
      assert.equal(principal.kind, 'api_key');
      assert.equal(principal.keyHash, hashApiKey(ADMIN_KEY));
      assert.equal(principal.orgRole, 'owner', 'the bootstrap key acts as the owner');
      assert.equal(principal.expiresAt, null);
      assert.ok(principal.scopes.includes('completions.write'));
      assert.ok(Object.isFrozen(principal.scopes), 'scopes cannot be changed through a principal');
    });

    test('an unknown key resolves to null', async () => {
      const keys = resolver();
      assert.equal(await keys.resolve(generateApiKeySecret()), null);
      assert.equal(await keys.resolve(''), null);
      assert.equal(await keys.resolve(`${ADMIN_KEY}x`), null, 'a near miss of a real key is unknown');
    });

    test('a workspace key resolves to its own workspace', async () => {
      const { secret, hash, row } = await workspaceKey();
      const principal = await resolver().resolve(secret);
      assert.ok(principal);
      assert.deepEqual(principal, {
        kind: 'api_key',
        keyId: row.id,
        keyHash: hash,
        keyType: 'workspace',
        subType: 'service',
        organisationId: boot.organisation.id,
        workspaceId: otherWorkspace.id,
        scopes: ['completions.write'],
        orgRole: null,
        workspaceRole: null,
        userId: null,
        expiresAt: null,
      });
    });

    test('a cached key resolves without the database until it is invalidated', async () => {
      const counted = countingDb(db);
      const keys = resolver({ db: counted.db });
      const { secret, hash, row } = await workspaceKey();
      const first = await keys.resolve(secret);
      assert.ok(first);
      const queries = counted.selects();
      assert.ok(queries > 0, 'the first resolve read the database');

      await deleteKey(row.id);
      assert.equal(await keys.resolve(secret), first, 'served from the cache although the row is gone');
      assert.equal(counted.selects(), queries, 'no query for a cached key');

      keys.invalidate(generateApiKeySecret()); // another key's invalidation leaves this entry alone
      assert.equal(await keys.resolve(secret), first);

      keys.invalidate(hash);
      assert.equal(await keys.resolve(secret), null, 'after invalidate() the deleted key is gone');
      assert.ok(counted.selects() > queries, 'the database was asked again');
    });

    test('invalidate() without an argument drops every entry', async () => {
      const keys = resolver();
      const one = await workspaceKey();
      const two = await workspaceKey();
      assert.ok(await keys.resolve(one.secret));
      assert.ok(await keys.resolve(two.secret));
      await deleteKey(one.row.id);
      await deleteKey(two.row.id);
      assert.ok(await keys.resolve(one.secret), 'still cached');
      keys.invalidate();
      assert.equal(await keys.resolve(one.secret), null);
      assert.equal(await keys.resolve(two.secret), null);
    });

    test('a cached entry lives at most ttlMs on the injected clock', async () => {
      const clock = manualClock();
      const keys = resolver({ now: clock.now, ttlMs: 10_000 });
      const { secret, row } = await workspaceKey();
      const principal = await keys.resolve(secret);
      assert.ok(principal);
      await deleteKey(row.id);
      clock.advance(9_999);
      assert.equal(await keys.resolve(secret), principal, 'still within its ttl');
      clock.advance(2);
      assert.equal(await keys.resolve(secret), null, 'past its ttl the entry is reloaded and the key is gone');
    });

    test('a revoked key resolves to null', async () => {
      const { secret } = await workspaceKey({ status: 'revoked' });
      assert.equal(await resolver().resolve(secret), null);
    });

    test('an expired key resolves to null', async () => {
      const clock = manualClock();
      const { secret } = await workspaceKey({ expiresAt: new Date(clock.current - 1_000) });
      assert.equal(await resolver({ now: clock.now }).resolve(secret), null);
      // and on the real clock too
      assert.equal(await resolver().resolve(secret), null);
    });

    test('a cached key stops resolving when the clock passes its expiry', async () => {
      const clock = manualClock();
      const expiresAt = clock.current + 10_000;
      const counted = countingDb(db);
      const keys = resolver({ db: counted.db, now: clock.now, ttlMs: 60_000 });
      const { secret } = await workspaceKey({ expiresAt: new Date(expiresAt) });
      const principal = await keys.resolve(secret);
      assert.ok(principal, 'valid before its expiry');
      assert.equal(principal.expiresAt, expiresAt);
      const queries = counted.selects();
      clock.advance(9_999);
      assert.equal(await keys.resolve(secret), principal);
      clock.advance(1);
      assert.equal(await keys.resolve(secret), null, 'expired at expiresAt');
      clock.advance(5_000);
      assert.equal(await keys.resolve(secret), null);
      assert.equal(counted.selects(), queries, 'the expiry was decided from the cached entry');
    });

    test('an unknown key is remembered as unknown for negativeTtlMs', async () => {
      const clock = manualClock();
      const counted = countingDb(db);
      const keys = resolver({ db: counted.db, now: clock.now, negativeTtlMs: 5_000, ttlMs: 60_000 });
      const secret = generateApiKeySecret();
      assert.equal(await keys.resolve(secret), null, 'a miss');
      const queries = counted.selects();

      await workspaceKey({ keyHash: hashApiKey(secret), maskedKey: maskApiKey(secret) });
      assert.equal(await keys.resolve(secret), null, 'the miss is remembered');
      clock.advance(4_999);
      assert.equal(await keys.resolve(secret), null, 'still remembered just before negativeTtlMs');
      assert.equal(counted.selects(), queries, 'remembered misses do not query the database');

      clock.advance(2);
      const principal = await keys.resolve(secret);
      assert.ok(principal, 'found once negativeTtlMs has passed');
      assert.equal(principal.workspaceId, otherWorkspace.id);
    });

    test('a resolve that starts after invalidate() does not reuse a load that began before it', async () => {
      const held = heldDb(db);
      const keys = resolver({ db: held.db });
      const { secret, hash, row } = await workspaceKey();
      const before = keys.resolve(secret); // reads the key while it is still active; its answer is held back
      await held.loaded;
      await db.update(apiKeys).set({ status: 'revoked' }).where(eq(apiKeys.id, row.id));
      keys.invalidate(hash); // what revoking a key does
      const afterRevoke = keys.resolve(secret);
      held.release();
      assert.ok(await before, 'a resolve that began before the revocation may still succeed');
      assert.equal(await afterRevoke, null, 'a resolve that began after revoke + invalidate never sees the key');
      assert.equal(await keys.resolve(secret), null, 'the pre-revocation answer was not cached');
    });

    test('concurrent resolves of an uncached key share one load', async () => {
      const counted = countingDb(db);
      const keys = resolver({ db: counted.db });
      const { secret, row } = await workspaceKey();
      const principals = await Promise.all(Array.from({ length: 10 }, () => keys.resolve(secret)));
      const first = principals[0];
      assert.ok(first);
      assert.equal(first.keyId, row.id);
      for (const principal of principals) assert.equal(principal, first, 'every caller got the same object');
      assert.equal(counted.selects(), 1, 'one query for ten concurrent resolves of a workspace key');

      // the same for an admin key, whose load also looks up the default workspace
      const adminCounted = countingDb(db);
      const adminKeys = resolver({ db: adminCounted.db });
      const admins = await Promise.all(Array.from({ length: 10 }, () => adminKeys.resolve(ADMIN_KEY)));
      assert.ok(admins[0]);
      assert.equal(new Set<Principal | null>(admins).size, 1);
      assert.equal(adminCounted.selects(), 2, 'one key query and one default-workspace query');
    });
  });
}
