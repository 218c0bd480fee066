/**
 * JWT -> Principal. The organisation is the token's `organisation_id` claim or the bootstrap organisation; its
 * JWT settings say where the keys are. The user must exist in the organisation (invited first), and be a member
 * of the workspace the token names (or an organisation owner/admin). Verified tokens are cached until they expire.
 */
import { asc, eq } from 'drizzle-orm';
import { decodeJwt, type JWTPayload } from 'jose';
import { boundedLru } from '../core/lru.ts';
import type { OrgRole, Principal, WorkspaceRole } from '../core/context.ts';
import { unauthorized } from '../core/errors.ts';
import type { Db } from '../storage/database.ts';
import { defaultWorkspace } from '../storage/repositories/organisations.ts';
import { findWorkspace } from '../storage/repositories/workspaces.ts';
import { organisations, users } from '../storage/schema.ts';
import { userRoles } from '../storage/repositories/users.ts';
import type { JwtSettings, JwtVerifier } from './jwt.ts';
import { isKnownScope } from './scopes.ts';
import { hashApiKey } from './secrets.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface JwtResolver {
  resolve(token: string): Promise<Principal>;
  invalidate(tokenHash?: string): void;
}

export interface JwtOrganisationSettings {
  jwks_url?: string;
  issuer?: string;
  audience?: string;
}

export function jwtSettingsOf(settings: Record<string, unknown> | null | undefined): JwtOrganisationSettings | undefined {
  const jwt = settings?.jwt;
  return typeof jwt === 'object' && jwt !== null ? (jwt as JwtOrganisationSettings) : undefined;
}

function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scopes ?? (typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
  return Array.isArray(raw) ? raw.filter((scope): scope is string => typeof scope === 'string' && isKnownScope(scope)) : [];
}

/**
 * Called at sign-in when the token carries a `groups` claim (an array of group ids or names), before the workspace
 * check: SCIM group mappings turn those groups into workspace memberships (src/domain/scim/apply-scim-groups.ts).
 * Injected because domain code depends on auth, never the other way round.
 */
export type GroupSync = (input: { organisationId: string; userId: string; groups: readonly unknown[] }) => Promise<void>;

export function createJwtResolver(options: { db: Db; verifier: JwtVerifier; envJwksUrl?: string | undefined; now?: () => number; groupSync?: GroupSync }): JwtResolver {
  const now = options.now ?? Date.now;
  const cache = boundedLru<string, Principal>(10_000, { perf: { now } });

  async function settingsFor(organisationId: string | undefined): Promise<{ organisationId: string; settings: JwtSettings }> {
    const rows = organisationId
      ? await options.db.select().from(organisations).where(eq(organisations.id, organisationId)).limit(1)
      : await options.db.select().from(organisations).orderBy(asc(organisations.createdAt)).limit(1);
    const organisation = rows[0];
    if (!organisation) throw unauthorized('Unknown organisation in token.', 'invalid_token');
    const configured = jwtSettingsOf(organisation.settings);
    if (configured?.jwks_url) {
      return { organisationId: organisation.id, settings: { jwksUrl: configured.jwks_url, issuer: configured.issuer, audience: configured.audience, guarded: true } };
    }
    const isBootstrap = !organisationId || (await settingsFor(undefined)).organisationId === organisation.id;
    if (options.envJwksUrl && isBootstrap) return { organisationId: organisation.id, settings: { jwksUrl: options.envJwksUrl, guarded: false } };
    throw unauthorized('JWT authentication is not configured for this organisation.', 'jwt_not_configured');
  }

  async function load(token: string, tokenHash: string): Promise<Principal> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw unauthorized('Invalid token.', 'invalid_token');
    }
    const claimedOrg = typeof unverified.organisation_id === 'string' && UUID.test(unverified.organisation_id) ? unverified.organisation_id : undefined;
    const { organisationId, settings } = await settingsFor(claimedOrg);
    const payload = await options.verifier.verify(token, settings);

    const byId = typeof payload.sub === 'string' && UUID.test(payload.sub);
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    const userRows = byId
      ? await options.db.select().from(users).where(eq(users.id, payload.sub!)).limit(1)
      : email
        ? await options.db.select().from(users).where(eq(users.email, email)).limit(1)
        : [];
    const user = userRows.find((row) => row.organisationId === organisationId);
    if (!user) throw unauthorized('The token\'s user is not a member of the organisation.', 'unknown_user');
    // an absent claim changes nothing: an identity provider that does not send groups never revokes a membership
    if (options.groupSync && Array.isArray(payload.groups)) await options.groupSync({ organisationId, userId: user.id, groups: payload.groups });

    let workspaceId: string;
    let workspaceRole: WorkspaceRole | null = null;
    const orgRole = user.role as OrgRole;
    if (typeof payload.workspace_id === 'string') {
      const workspace = await findWorkspace(options.db, organisationId, payload.workspace_id);
      if (!workspace) throw unauthorized('The token names an unknown workspace.', 'unknown_workspace');
      workspaceId = workspace.id;
      workspaceRole = (await userRoles(options.db, user.id, workspace.id))?.workspaceRole ?? null;
      if (!workspaceRole && orgRole !== 'owner' && orgRole !== 'admin') {
        throw unauthorized('The token\'s user is not a member of its workspace.', 'not_a_member');
      }
    } else {
      // an organisation-level token acts for the whole organisation: only owners and admins may hold one
      if (orgRole !== 'owner' && orgRole !== 'admin') {
        throw unauthorized('A member\'s token must name its workspace (workspace_id claim).', 'workspace_required');
      }
      const workspace = await defaultWorkspace(options.db, organisationId);
      if (!workspace) throw unauthorized('The organisation has no default workspace.', 'unknown_workspace');
      workspaceId = workspace.id;
    }
    return {
      kind: 'jwt',
      keyId: typeof payload.jti === 'string' ? payload.jti : `jwt:${user.id}`,
      keyHash: tokenHash,
      keyType: typeof payload.workspace_id === 'string' ? 'workspace' : 'organisation',
      subType: 'user',
      organisationId,
      workspaceId,
      scopes: Object.freeze(scopesOf(payload)),
      orgRole,
      workspaceRole,
      userId: user.id,
      expiresAt: (payload.exp ?? 0) * 1000,
    };
  }

  return {
    async resolve(token) {
      const tokenHash = hashApiKey(token);
      const cached = cache.get(tokenHash);
      if (cached && (cached.expiresAt ?? 0) > now()) return cached;
      const principal = await load(token, tokenHash);
      // never cached past the token's own expiry, and re-checked at most every 5 minutes (role changes)
      cache.set(tokenHash, principal, { ttl: Math.max(1, Math.min((principal.expiresAt ?? 0) - now(), 300_000)) });
      return principal;
    },
    invalidate(tokenHash) {
      if (tokenHash === undefined) cache.clear();
      else cache.delete(tokenHash);
    },
  };
}
