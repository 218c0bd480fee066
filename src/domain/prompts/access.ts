/**
 * Who sees and who changes a prompt. A prompt belongs to one workspace: seen by whoever may access that workspace
 * (organisation admins see every workspace's), changed by its managers and organisation admins. Another
 * workspace's prompt is a 404, so its existence does not leak.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findPrompt, type PromptRow } from '../../storage/repositories/prompts.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

/** `{promptId}` path parameter of the admin routes: a UUID or a slug. */
export function promptParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.promptId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) throw invalidParam('promptId', 'promptId must be a prompt UUID or slug.');
  return value;
}

export function promptNotFound(reference: string) {
  return notFound(`Prompt "${reference}" not found.`, 'prompt_not_found');
}

export async function visiblePrompt(db: Db, principal: Principal, idOrSlug: string): Promise<PromptRow> {
  const row = await findPrompt(db, principal.organisationId, idOrSlug, principal.workspaceId);
  if (!row || !canAccessWorkspace(principal, row.workspaceId)) throw promptNotFound(idOrSlug);
  return row;
}

/** A prompt the caller may change: visible, and in a workspace the caller manages. */
export async function managedPrompt(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<PromptRow> {
  const row = await visiblePrompt(db, principal, idOrSlug);
  requireWorkspaceManager(principal, row.workspaceId, `${what} its prompts`);
  return row;
}

/** The acting user's id, or the API key's id when no user acted. */
export function actorId(principal: Principal): string {
  return principal.userId ?? principal.keyId;
}
