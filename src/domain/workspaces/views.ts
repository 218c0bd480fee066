/** Workspaces and their members as the admin API shows them (reference §3.8 Workspace, WorkspaceWithUsers; §3.9 WorkspaceMember). */
import type { MemberRow } from '../../storage/repositories/workspace-members.ts';
import type { WorkspaceRow } from '../../storage/repositories/workspaces.ts';

/** What the `defaults` column holds. */
export interface WorkspaceDefaults {
  metadata?: Record<string, string>;
  input_guardrails?: string[];
  output_guardrails?: string[];
  user_api_key_config?: string | null;
  log_bodies?: boolean;
}

function storedDefaults(row: WorkspaceRow): WorkspaceDefaults {
  return row.defaults as WorkspaceDefaults;
}

export function workspaceView(row: WorkspaceRow) {
  return {
    object: 'workspace' as const,
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    // the reference types is_default as an integer
    defaults: { metadata: storedDefaults(row).metadata ?? {}, is_default: row.isDefault ? 1 : 0 },
    status: row.status,
    usage_limits: row.usageLimits,
    rate_limits: row.rateLimits,
  };
}

export function memberView(row: MemberRow) {
  return {
    object: 'workspace-user' as const,
    id: row.userId,
    first_name: row.firstName,
    last_name: row.lastName,
    org_role: row.orgRole,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    status: 'active' as const,
    workspace_id: row.workspaceId,
    email: row.email,
    scopes: [] as string[],
    settings: null,
  };
}

export function workspaceWithUsersView(row: WorkspaceRow, members: readonly MemberRow[]) {
  const base = workspaceView(row);
  const defaults = storedDefaults(row);
  return {
    ...base,
    defaults: {
      ...base.defaults,
      input_guardrails: defaults.input_guardrails ?? [],
      output_guardrails: defaults.output_guardrails ?? [],
      user_api_key_config: defaults.user_api_key_config ?? null,
      log_bodies: defaults.log_bodies !== false,
    },
    users: members.map(memberView),
  };
}
