/**
 * What the workspace and workspace-member use cases take, with the admin API's field names (the transport's
 * schemas are checked against these types at compile time, in src/http/admin/workspaces/schemas.ts).
 */
import type { WorkspaceRole } from '../../core/context.ts';
import type { RateLimit, UsageLimit } from '../limits.ts';

interface WorkspaceLimits {
  usage_limits?: UsageLimit[] | null;
  rate_limits?: RateLimit[] | null;
}

export interface CreateWorkspaceInput extends WorkspaceLimits {
  name: string;
  description?: string | null;
  slug?: string;
  defaults?: { metadata?: Record<string, string> };
  /** ids of organisation users who join as members */
  users?: readonly string[];
}

export interface UpdateWorkspaceInput extends WorkspaceLimits {
  name?: string;
  description?: string | null;
  /** merged key by key into the stored defaults */
  defaults?: {
    metadata?: Record<string, string>;
    input_guardrails?: string[];
    output_guardrails?: string[];
    /** a config slug or id; null clears it */
    user_api_key_config?: string | null;
    /** false keeps request and response bodies out of the workspace's request log */
    log_bodies?: boolean;
  };
}

export interface AddMembersInput {
  users: ReadonlyArray<{ id: string; role: WorkspaceRole }>;
}

export interface UpdateMemberInput {
  role: WorkspaceRole;
}

export interface ListWorkspacesInput {
  nameContains?: string | undefined;
  exactName?: string | undefined;
  statuses?: readonly string[] | undefined;
}

export interface ListMembersInput {
  role?: WorkspaceRole | undefined;
  email?: string | undefined;
}
