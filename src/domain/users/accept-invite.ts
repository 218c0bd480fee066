/**
 * Accepting an invite: creates the user once (the invite row is locked for the transaction), adds the workspace
 * memberships and, when the invite asks for them, one workspace user key per workspace (secrets shown once, in
 * the answer). A used, cancelled or expired invite is refused. The one admin call made without a gateway key, so
 * it writes its own audit record rather than going through the transport's admin wrapper.
 */
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../auth/secrets.ts';
import { GatewayError, conflict, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { insertApiKey } from '../../storage/repositories/api-keys.ts';
import { insertAuditLog } from '../../storage/repositories/audit-logs.ts';
import { inviteStatus, lockInviteByToken, updateInvite } from '../../storage/repositories/invites.ts';
import { findUserByEmail, insertUser } from '../../storage/repositories/users.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { workspaceMembers } from '../../storage/schema.ts';
import { maskSecrets } from '../../secrets/mask.ts';
import type { AcceptInviteInput } from './inputs.ts';

/** What the audit record keeps of the HTTP call; the transport supplies it. */
export interface CallFacts {
  method: string;
  /** the path, without its query string */
  uri: string;
  requestId: string;
  clientIp: string;
}

export async function acceptInvite(db: Db, input: AcceptInviteInput, now: Date) {
  const invite = await lockInviteByToken(db, hashApiKey(input.token));
  if (!invite) throw notFound('This invite link is not valid.', 'invite_not_found');
  const status = inviteStatus(invite, now);
  if (status !== 'pending') throw new GatewayError(410, 'invalid_request_error', `This invite is ${status}.`, { code: `invite_${status}` });
  if (await findUserByEmail(db, invite.organisationId, invite.email)) throw conflict(`A user with email ${invite.email} already exists.`, 'user_exists');
  const user = await insertUser(db, {
    organisationId: invite.organisationId,
    email: invite.email,
    role: invite.role,
    firstName: input.first_name ?? null,
    lastName: input.last_name ?? null,
  });
  const keys: Array<{ workspace_id: string; id: string; key: string }> = [];
  for (const membership of invite.workspaces) {
    // a workspace deleted since the invite was sent is skipped
    if (!(await findWorkspace(db, invite.organisationId, membership.id))) continue;
    await db.insert(workspaceMembers).values({ workspaceId: membership.id, userId: user.id, role: membership.role });
    if (invite.workspaceApiKeyDetails) {
      const secret = generateApiKeySecret();
      const key = await insertApiKey(db, {
        organisationId: invite.organisationId,
        workspaceId: membership.id,
        type: 'workspace',
        subType: 'user',
        userId: user.id,
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
  await updateInvite(db, invite.id, { status: 'accepted', acceptedAt: now, acceptedUserId: user.id });
  return { invite, user, keys };
}

/**
 * Accepts and records it in one transaction. Refused acceptances are not recorded: without a valid invite there
 * is no organisation to file them under.
 */
export async function acceptInviteRecorded(db: Db, input: AcceptInviteInput, now: Date, call: CallFacts) {
  return db.transaction(async (tx) => {
    const accepted = await acceptInvite(tx, input, now);
    await insertAuditLog(tx, {
      organisationId: accepted.invite.organisationId,
      timestamp: now,
      userType: 'user',
      userId: accepted.user.id,
      action: 'user_invites.accept',
      resourceType: 'user_invite',
      resourceId: accepted.invite.id,
      method: call.method,
      uri: call.uri,
      requestId: call.requestId,
      requestBody: JSON.stringify(maskSecrets(input)),
      clientIp: call.clientIp,
      responseStatusCode: 200,
      outcome: 'success',
    });
    return accepted;
  });
}
