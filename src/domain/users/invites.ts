/**
 * User invites. The invite link carries a random token; only its hash is stored. Accepting creates the user
 * once (the invite row is locked for the transaction), adds the workspace memberships and, when the invite asks
 * for them, one workspace user key per workspace (secrets shown once, in the answer). A used, cancelled or
 * expired invite is refused.
 */
import { randomBytes } from 'node:crypto';
import { requireAdminKey, requireScopesWithin } from '../../auth/authorize.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../auth/secrets.ts';
import { isKnownScope } from '../../auth/scopes.ts';
import type { Principal } from '../../core/context.ts';
import { GatewayError, conflict, invalidParam, notFound } from '../../core/errors.ts';
import type { CreateInviteBody } from '../../http/admin/users/schemas.ts';
import type { Db } from '../../storage/database.ts';
import { insertApiKey } from '../../storage/repositories/api-keys.ts';
import { getInvite, insertInvite, inviteStatus, lockInviteByToken, pendingInviteFor, updateInvite, type InviteRow } from '../../storage/repositories/invites.ts';
import { findUserByEmail } from '../../storage/repositories/users.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { users, workspaceMembers } from '../../storage/schema.ts';
import { createdBy } from '../api-keys/create-api-key.ts';

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashApiKey(token) };
}

export function inviteLink(origin: string, token: string): string {
  return `${origin}/v1/admin/users/invites/accept?token=${token}`;
}

export async function createInvite(db: Db, principal: Principal, body: CreateInviteBody, now: Date) {
  requireAdminKey(principal, 'invite users');
  const email = body.email.trim().toLowerCase();
  if (await findUserByEmail(db, principal.organisationId, email)) throw conflict(`A user with email ${email} already exists.`, 'user_exists');
  if (await pendingInviteFor(db, principal.organisationId, email, now)) throw conflict(`${email} already has a pending invite.`, 'invite_exists');
  const workspaces: Array<{ id: string; role: string }> = [];
  for (const [index, entry] of body.workspaces.entries()) {
    const workspace = await findWorkspace(db, principal.organisationId, entry.id);
    if (!workspace) throw invalidParam(`workspaces[${index}].id`, `Workspace "${entry.id}" not found.`, 'workspace_not_found');
    if (workspaces.some((existing) => existing.id === workspace.id)) throw invalidParam(`workspaces[${index}].id`, 'A workspace is listed twice.');
    workspaces.push({ id: workspace.id, role: entry.role });
  }
  const scopes = body.workspace_api_key_details?.scopes ?? [];
  scopes.forEach((scope, index) => {
    if (!isKnownScope(scope)) throw invalidParam(`workspace_api_key_details.scopes[${index}]`, `Unknown scope "${scope}".`, 'unknown_scope');
  });
  // the keys made on acceptance are handed out by this caller: no scope beyond its own (as for keys it creates)
  requireScopesWithin(principal, scopes);
  const { token, tokenHash } = newToken();
  const invite = await insertInvite(db, {
    organisationId: principal.organisationId,
    email,
    role: body.role,
    workspaces,
    workspaceApiKeyDetails: body.workspace_api_key_details ? { scopes: [...new Set(scopes)] } : null,
    tokenHash,
    invitedBy: createdBy(principal),
    expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
  });
  return { invite, token };
}

export async function findInviteFor(db: Db, principal: Principal, id: string): Promise<InviteRow> {
  requireAdminKey(principal, 'manage invites');
  const invite = await getInvite(db, principal.organisationId, id);
  if (!invite) throw notFound(`Invite "${id}" not found.`, 'invite_not_found');
  return invite;
}

export async function cancelInvite(db: Db, principal: Principal, id: string, now: Date): Promise<InviteRow> {
  const invite = await findInviteFor(db, principal, id);
  const status = inviteStatus(invite, now);
  if (status === 'accepted') throw conflict('An accepted invite cannot be deleted.', 'invite_already_accepted');
  if (status !== 'cancelled') await updateInvite(db, invite.id, { status: 'cancelled' });
  return invite;
}

/** A new link (the old one stops working) and a new expiry. */
export async function resendInvite(db: Db, principal: Principal, id: string, now: Date) {
  const invite = await findInviteFor(db, principal, id);
  const status = inviteStatus(invite, now);
  if (status === 'accepted' || status === 'cancelled') throw conflict(`A ${status} invite cannot be resent.`, `invite_${status}`);
  const { token, tokenHash } = newToken();
  await updateInvite(db, invite.id, { tokenHash, expiresAt: new Date(now.getTime() + INVITE_TTL_MS) });
  return { invite, token };
}

export async function acceptInvite(db: Db, input: { token: string; first_name?: string | undefined; last_name?: string | undefined }, now: Date) {
  const invite = await lockInviteByToken(db, hashApiKey(input.token));
  if (!invite) throw notFound('This invite link is not valid.', 'invite_not_found');
  const status = inviteStatus(invite, now);
  if (status !== 'pending') throw new GatewayError(410, 'invalid_request_error', `This invite is ${status}.`, { code: `invite_${status}` });
  if (await findUserByEmail(db, invite.organisationId, invite.email)) throw conflict(`A user with email ${invite.email} already exists.`, 'user_exists');
  const [user] = await db
    .insert(users)
    .values({ organisationId: invite.organisationId, email: invite.email, role: invite.role, firstName: input.first_name ?? null, lastName: input.last_name ?? null })
    .returning();
  const keys: Array<{ workspace_id: string; id: string; key: string }> = [];
  for (const membership of invite.workspaces) {
    // a workspace deleted since the invite was sent is skipped
    if (!(await findWorkspace(db, invite.organisationId, membership.id))) continue;
    await db.insert(workspaceMembers).values({ workspaceId: membership.id, userId: user!.id, role: membership.role });
    if (invite.workspaceApiKeyDetails) {
      const secret = generateApiKeySecret();
      const key = await insertApiKey(db, {
        organisationId: invite.organisationId,
        workspaceId: membership.id,
        type: 'workspace',
        subType: 'user',
        userId: user!.id,
        name: `${invite.email} (invite)`,
        keyHash: hashApiKey(secret),
        maskedKey: maskApiKey(secret),
        scopes: invite.workspaceApiKeyDetails.scopes,
        creationMode: 'auto',
        createdBy: `invite:${invite.id}`,
      });
      keys.push({ workspace_id: membership.id, id: key.id, key: secret });
    }
  }
  await updateInvite(db, invite.id, { status: 'accepted', acceptedAt: now, acceptedUserId: user!.id });
  return { invite, user: user!, keys };
}
