/**
 * The scope catalogue: `<resource>.<action>`. The reference API names the first group; the rest follow the
 * same rule for the resource groups it leaves unnamed. A key can only be given scopes from this list.
 */
const ACTIONS_CRUDL = ['create', 'read', 'update', 'delete', 'list'] as const;

function crudl(resource: string): string[] {
  return ACTIONS_CRUDL.map((action) => `${resource}.${action}`);
}

export const ALL_SCOPES: readonly string[] = Object.freeze([
  'completions.write',
  'generations.create',
  'analytics.view',
  'logs.export',
  'logs.list',
  'logs.view',
  'logs.write',
  'organisations.read',
  'organisations.update',
  ...crudl('configs'),
  ...crudl('prompts'),
  'prompts.render',
  'prompts.publish',
  ...crudl('virtual_keys'),
  'virtual_keys.copy',
  'virtual_keys.duplicate',
  ...crudl('organisation_users'),
  ...crudl('organisation_service_api_keys'),
  ...crudl('workspaces'),
  ...crudl('workspace_users'),
  ...crudl('workspace_service_api_keys'),
  ...crudl('workspace_user_api_keys'),
  ...crudl('user_invites'),
  ...crudl('providers'),
  ...crudl('integrations'),
  ...crudl('guardrails'),
  ...crudl('rate_limits_policies'),
  ...crudl('usage_limits_policies'),
  ...crudl('collections'),
  ...crudl('labels'),
  ...crudl('prompt_partials'),
  ...crudl('secret_references'),
  ...crudl('mcp_integrations'),
  ...crudl('mcp_servers'),
  ...crudl('model_pricing'),
  'audit_logs.list',
  'feedback.create',
  'feedback.update',
]);

const KNOWN = new Set(ALL_SCOPES);

export function isKnownScope(scope: string): boolean {
  return KNOWN.has(scope);
}
