/** Answers of the users, invites, workspaces and workspace members groups (src/domain/users/views.ts, src/domain/workspaces/views.ts). */
import { Type } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, Timestamp, Uuid } from './common-schemas.ts';

const user = {
  object: Type.Literal('user'),
  id: Uuid,
  first_name: NullableString,
  last_name: NullableString,
  role: Type.String({ description: 'owner, admin or member' }),
  email: Type.String(),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  workspace_ids: Type.Array(Uuid),
};

export const UserSchema = Type.Object(user);

export const AcceptedInviteSchema = Type.Object({
  ...user,
  api_keys: Type.Array(Type.Object({ workspace_id: Uuid, id: Uuid, key: Type.String({ description: 'the secret, shown this once' }) }), {
    description: 'the workspace keys made for the new user, one per workspace of the invite that asked for one',
  }),
});

export const InviteSchema = Type.Object({
  object: Type.Literal('invite'),
  id: Uuid,
  email: Type.String(),
  role: Type.String(),
  workspaces: Type.Array(Type.Object({ id: Type.String(), role: Type.String() })),
  workspace_api_key_details: Type.Union([Type.Object({ scopes: Type.Array(Type.String()) }), Type.Null()]),
  created_at: Timestamp,
  expires_at: Timestamp,
  accepted_at: NullableTimestamp,
  status: Type.Union(['pending', 'cancelled', 'accepted', 'expired'].map((status) => Type.Literal(status))),
  invited_by: NullableString,
});

export const InviteCreatedSchema = Type.Object({ id: Uuid, invite_link: Type.String({ description: 'carries the token the invitee accepts with' }) });

export const InviteResentSchema = Type.Object({ inviteLink: Type.String({ description: 'a new link; the old token no longer works' }) });

const workspace = {
  object: Type.Literal('workspace'),
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  description: NullableString,
  created_at: Timestamp,
  last_updated_at: Timestamp,
  status: Type.String({ description: 'active or archived' }),
  usage_limits: Type.Union([Type.Array(Type.Object({})), Type.Null()]),
  rate_limits: Type.Union([Type.Array(Type.Object({})), Type.Null()]),
};

const defaults = { metadata: Type.Record(Type.String(), Type.String()), is_default: Type.Integer({ minimum: 0, maximum: 1 }) };

export const WorkspaceSchema = Type.Object({ ...workspace, defaults: Type.Object(defaults) });

export const WorkspaceMemberSchema = Type.Object({
  object: Type.Literal('workspace-user'),
  id: Uuid,
  first_name: NullableString,
  last_name: NullableString,
  org_role: Type.String(),
  role: Type.String({ description: 'admin, manager or member' }),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  status: Type.Literal('active'),
  workspace_id: Uuid,
  email: Type.String(),
  scopes: Type.Array(Type.String()),
  settings: Type.Null(),
});

export const WorkspaceWithUsersSchema = Type.Object({
  ...workspace,
  defaults: Type.Object({
    ...defaults,
    input_guardrails: Type.Array(Type.String()),
    output_guardrails: Type.Array(Type.String()),
    user_api_key_config: NullableString,
  }),
  users: Type.Array(WorkspaceMemberSchema),
});
