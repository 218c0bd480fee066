/**
 * User invites. The invite link carries a random token; only its hash is stored. Accepting: accept-invite.ts.
 */
import { randomBytes } from 'node:crypto';
import { requireAdminKey, requireScopesWithin } from '../../auth/authorize.ts';
import { hashApiKey } from '../../auth/secrets.ts';
import { isKnownScope } from '../../auth/scopes.ts';
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  getInvite,
  insertInvite,
  inviteStatus,
  listInvites,
  pendingInviteFor,
  updateInvite,
  type InviteRow,
  type InviteStatus,
} from '../../storage/repositories/invites.ts';
import { findUserByEmail } from '../../storage/repositories/users.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { createdBy } from '../api-keys/create-api-key.ts';
import type { CreateInviteInput, ListInvitesInput } from './inputs.ts';

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashApiKey(token) };
}

export function inviteLink(origin: string, token: string): string {
  return `${origin}/v1/admin/users/invites/accept?token=${token}`;
}

export async function createInvite(db: Db, principal: Principal, body: CreateInviteInput, now: Date) {
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

/** An invite with its status at `now` (an expired one is stored as pending). */
export interface InviteWithStatus {
  invite: InviteRow;
  status: InviteStatus;
}

export async function listInvitesFor(db: Db, principal: Principal, filter: ListInvitesInput, page: { offset: number; limit: number }, now: Date) {
  requireAdminKey(principal, 'list invites');
  // invites are stored with the email lower-cased
  const { total, rows } = await listInvites(db, { organisationId: principal.organisationId, ...filter, email: filter.email?.toLowerCase() }, page, now);
  const invites: InviteWithStatus[] = rows.map((invite) => ({ invite, status: inviteStatus(invite, now) }));
  return { total, invites };
}

export async function readInvite(db: Db, principal: Principal, id: string, now: Date): Promise<InviteWithStatus> {
  const invite = await findInviteFor(db, principal, id);
  return { invite, status: inviteStatus(invite, now) };
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
