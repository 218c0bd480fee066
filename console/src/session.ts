/**
 * Who the signed-in key is, learnt through the public admin API alone: the key's own record (found in GET
 * /v1/api-keys by its masked form, computed here as the gateway computes it), and for a user's key the user's role
 * in its workspace (GET /v1/admin/workspaces/{id}/users/{userId}). What the console offers follows the gateway's
 * own rules (src/auth/authorize.ts): a scope for every call, and for a change the right to manage the workspace
 * (admin keys, workspace service keys, workspace managers and admins) or an admin key for organisation matters.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, api, describeError, type ListPage } from './api.ts';

export type KeyKind = 'organisation-service' | 'workspace-service' | 'workspace-user';

export interface Identity {
  /** the key's own record was found: its scopes are known */
  known: boolean;
  /** why it was not */
  unknownWhy: string;
  id: string | null;
  name: string | null;
  kind: KeyKind | null;
  workspaceId: string | null;
  userId: string | null;
  scopes: ReadonlySet<string>;
  /** a user's key: the user's role in the workspace (org owners and admins act as such everywhere) */
  role: string | null;
  orgRole: string | null;
}

interface KeyRecord {
  id: string;
  key: string;
  name: string;
  type: string;
  workspace_id: string | null;
  user_id: string | null;
  scopes: string[];
}

/** The gateway's masked form of a secret (src/auth/secrets.ts maskApiKey). */
export function maskOf(secret: string): string {
  const head = secret.slice(0, Math.min(5, Math.floor(secret.length / 4)));
  return `${head}*******${secret.slice(-2)}`;
}

const PAGE_SIZE = 100;
const MAX_PAGES = 20;

async function findOwnRecord(secret: string): Promise<KeyRecord[]> {
  const masked = maskOf(secret);
  const found: KeyRecord[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const list = await api<ListPage<KeyRecord>>('GET', '/api-keys', { query: { current_page: page, page_size: PAGE_SIZE }, key: secret });
    found.push(...list.data.filter((row) => row.key === masked));
    if ((page + 1) * PAGE_SIZE >= list.total) break;
  }
  return found;
}

/** Signs in: a 401 (unknown, revoked or expired key) is thrown; anything else yields what could be learnt. */
export async function identify(secret: string): Promise<Identity> {
  const identity: Identity = { known: false, unknownWhy: '', id: null, name: null, kind: null, workspaceId: null, userId: null, scopes: new Set(), role: null, orgRole: null };
  let records: KeyRecord[];
  try {
    records = await findOwnRecord(secret);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw error;
    identity.unknownWhy = `this key cannot list API keys, so the console cannot read its scopes (${describeError(error)})`;
    return identity;
  }
  if (records.length !== 1) {
    identity.unknownWhy = records.length === 0
      ? 'the key\'s own record is not among the keys it may list'
      : 'several keys share this key\'s masked form';
    return identity;
  }
  const own = records[0]!;
  Object.assign(identity, {
    known: true, id: own.id, name: own.name, kind: own.type as KeyKind, workspaceId: own.workspace_id, userId: own.user_id, scopes: new Set(own.scopes),
  });
  if (own.type === 'workspace-user' && own.workspace_id && own.user_id) {
    try {
      const member = await api<{ role: string; org_role: string | null }>('GET', `/admin/workspaces/${own.workspace_id}/users/${own.user_id}`, { key: secret });
      identity.role = member.role;
      identity.orgRole = member.org_role;
    } catch {
      // unknown role: treated as the least one (member) below
    }
  }
  return identity;
}

export interface Permission {
  ok: boolean;
  /** why not, in plain words */
  why: string;
}

const ALLOWED: Permission = { ok: true, why: '' };

function managesWorkspaces(identity: Identity): boolean {
  if (identity.kind === 'organisation-service' || identity.kind === 'workspace-service') return true;
  if (identity.orgRole === 'owner' || identity.orgRole === 'admin') return true;
  return identity.role === 'manager' || identity.role === 'admin';
}

/**
 * May the key do this? `needs`: 'admin' (an admin key: organisation matters), 'manager' (changes in a workspace),
 * 'members' (changing who belongs: admin keys and managing users, not service keys), or nothing beyond the scope.
 */
export function permission(identity: Identity, scope: string, needs?: 'admin' | 'manager' | 'members'): Permission {
  if (!identity.known) return { ok: false, why: `Hidden because ${identity.unknownWhy}.` };
  if (!identity.scopes.has(scope)) return { ok: false, why: `Your key lacks the \`${scope}\` scope.` };
  if (needs === 'admin' && identity.kind !== 'organisation-service') return { ok: false, why: 'Only an admin API key can do this.' };
  if (needs === 'manager' && !managesWorkspaces(identity)) {
    return { ok: false, why: `Your role in this workspace (${identity.role ?? 'unknown, so treated as member'}) cannot change it; managers and admins can.` };
  }
  if (needs === 'members' && identity.kind !== 'organisation-service' && !(identity.kind === 'workspace-user' && managesWorkspaces(identity))) {
    return { ok: false, why: 'Only an admin key or a manager of this workspace (with their own key) can change its members.' };
  }
  return ALLOWED;
}

export interface Session {
  identity: Identity;
  /** the workspace pages work in: an admin key picks one; a workspace key has its own */
  workspaceId: string | null;
  setWorkspaceId(id: string): void;
  signOut(): void;
  can(scope: string, needs?: 'admin' | 'manager' | 'members'): Permission;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

/** The workspace filter of a list call: an admin key names the picked workspace; a workspace key needs none. */
export function workspaceQuery(session: Session): Record<string, string> {
  return session.identity.kind === 'organisation-service' && session.workspaceId ? { workspace_id: session.workspaceId } : {};
}
