/** The workspace roles a SCIM mapping may grant (the workspace members' vocabulary), weakest first. */
import type { WorkspaceRole } from '../../core/context.ts';

export const SCIM_ROLES = ['member', 'manager', 'admin'] as const satisfies readonly WorkspaceRole[];

/** The strongest of these roles (a user in several groups mapped to one workspace gets the highest); undefined for none. */
export function highestRole(roles: readonly string[]): WorkspaceRole | undefined {
  let best = -1;
  for (const role of roles) best = Math.max(best, (SCIM_ROLES as readonly string[]).indexOf(role));
  return best < 0 ? undefined : SCIM_ROLES[best];
}
