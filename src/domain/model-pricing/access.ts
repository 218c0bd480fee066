/**
 * Who sees and who changes a custom price: the rules of saved configs (src/domain/configs/access.ts). A workspace's
 * price: seen by whoever may access the workspace, changed by its managers (and organisation admins). An
 * organisation-wide price: seen by every key of the organisation (its requests pay it), changed by admin keys only.
 * The path names a provider of the registry and a model: malformed ones are 400s naming them.
 */
import { hasScope, requireAdminKey, requireScope, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { providerNames } from '../../providers/registry.ts';
import type { Db } from '../../storage/database.ts';
import { targetWorkspace } from '../workspaces/access.ts';

const PROVIDER = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MODEL_MAX_LENGTH = 255;
const REGISTERED: ReadonlySet<string> = new Set(providerNames());

export interface ModelPath {
  provider: string;
  model: string;
}

/** `{provider}` and the rest of the path, `{model}` (a model name may hold slashes: `meta-llama/Llama-3.3-70B`). */
export function modelPathParams(params: unknown): ModelPath {
  const record = (params ?? {}) as Record<string, unknown>;
  const provider = record.provider;
  const model = record['*'] ?? record.model;
  if (typeof provider !== 'string' || !PROVIDER.test(provider)) {
    throw invalidParam('provider', 'provider must be a provider name: lower-case letters, digits and dashes.');
  }
  // control characters (NUL among them) never name a model, and would not survive a text column
  if (typeof model !== 'string' || model.length === 0 || model.length > MODEL_MAX_LENGTH || /[\u0000-\u001f\u007f]/.test(model)) {
    throw invalidParam('model', `model must be 1 to ${MODEL_MAX_LENGTH} characters, without control characters.`);
  }
  return { provider, model };
}

export function isRegisteredProvider(provider: string): boolean {
  return REGISTERED.has(provider);
}

/** A custom price names a provider the gateway can call. */
export function requireRegisteredProvider(provider: string): void {
  if (!isRegisteredProvider(provider)) {
    throw invalidParam('provider', `Unknown provider "${provider}": a custom price names one of the gateway's providers.`, 'unknown_provider');
  }
}

export function requirePriceManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide model prices`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its model prices`);
}

/**
 * PUT creates or replaces, and the scope follows what it does: a key with neither scope is refused before anything
 * is read, the other check waits until the row is looked up.
 */
export function requireSomeSetScope(principal: Principal): void {
  if (!hasScope(principal, 'model_pricing.update')) requireScope(principal, 'model_pricing.create');
}

export function requireSetScope(principal: Principal, exists: boolean): void {
  requireScope(principal, exists ? 'model_pricing.update' : 'model_pricing.create');
}

/** The scope a price lives in: the named workspace (a workspace key: its own only), else the caller's default. */
export async function priceScope(db: Db, principal: Principal, workspace: string | undefined): Promise<string | null> {
  return targetWorkspace(db, principal, workspace);
}

export function modelPriceNotFound(path: ModelPath, workspaceId: string | null) {
  const where = workspaceId === null ? 'organisation-wide' : `in workspace ${workspaceId}`;
  return notFound(`No custom price for ${path.provider}/${path.model} ${where}.`, 'model_price_not_found');
}
