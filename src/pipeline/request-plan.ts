/**
 * The auth-context step: who is calling decides what the request runs under. The workspace's default
 * guardrails, and the config: x-gateway-config, else the key's default, else the workspace's (all held in
 * process). A request without a config is a plan of one attempt at the target its headers name, so both take
 * the same path through the executor.
 */
import type { GatewayHeaders, Principal } from '../core/context.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { plan, type Plan } from '../routing/planner.ts';
import { configForRequest, type SavedConfigs } from '../domain/configs/saved-configs.ts';
import { isProviderReference } from '../domain/providers/slug.ts';
import { NO_SETTINGS } from '../routing/target-settings.ts';
import type { WorkspaceDefaultsLookup, WorkspaceRequestDefaults } from '../domain/workspaces/request-defaults.ts';

export interface RequestPlan {
  plan: Plan;
  /** false for the one attempt of a request without a config: its headers are used as they are */
  configured: boolean;
  workspace: WorkspaceRequestDefaults;
  /** the saved config the request runs under, for the request log */
  savedConfig: { id: string; versionId: string } | undefined;
}

export interface PlanDeps {
  registry: ProviderRegistry;
  savedConfigs: SavedConfigs;
  workspaceDefaults: WorkspaceDefaultsLookup;
}

/** The path a request without a config reports in errors (`workspace.defaults.input_guardrails[0]`). */
export const UNCONFIGURED_PATH = 'request';

const SINGLE: Plan = { attempts: [{ path: UNCONFIGURED_PATH, index: '', name: undefined, target: NO_SETTINGS, fallbacks: [] }], mode: 'single' };

export async function planRequest(headers: GatewayHeaders, body: unknown, principal: Principal | undefined, deps: PlanDeps, random: () => number): Promise<RequestPlan> {
  const workspace = principal ? await deps.workspaceDefaults(principal.organisationId, principal.workspaceId) : { inputGuardrails: [], outputGuardrails: [] };
  const requested = await configForRequest(headers.config, principal, deps.savedConfigs, {
    // `provider: "@slug"` names a saved provider: resolved per attempt (saved-provider-target.ts)
    isKnownProvider: (name) => isProviderReference(name) || deps.registry.has(name),
    servesEmbeddings: (name) => deps.registry.get(name)?.capabilities.routes.has('embeddings') === true,
  });
  if (!requested) return { plan: SINGLE, configured: false, workspace, savedConfig: undefined };
  return {
    plan: plan(requested.config, { metadata: headers.metadata, params: body }, random),
    configured: true,
    workspace,
    savedConfig: requested.saved,
  };
}
