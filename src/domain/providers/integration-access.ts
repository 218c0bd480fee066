/**
 * Which workspaces may use an integration (api-surface §3.3): a workspace integration, its own workspace only; an
 * organisation integration, a workspace whose access row is enabled, or, without a row, every workspace when its
 * global workspace access is enabled. A row that disables a workspace wins over the global setting.
 */
import type { IntegrationRow, IntegrationWorkspaceRow } from '../../storage/repositories/providers.ts';

function globalAccessEnabled(settings: Record<string, unknown> | null): boolean {
  return settings !== null && settings.enabled === true;
}

export function workspaceMayUse(integration: IntegrationRow, access: IntegrationWorkspaceRow | undefined, workspaceId: string): boolean {
  if (integration.workspaceId !== null) return integration.workspaceId === workspaceId;
  if (access) return access.enabled;
  return globalAccessEnabled(integration.globalWorkspaceAccess);
}
