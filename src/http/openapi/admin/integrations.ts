/** Integrations, their models and their workspaces (src/http/admin/integrations/), addressed by id or slug. */
import { INTEGRATION_SLUG_PATTERN } from '../../admin/integrations/schemas.ts';
import { listRef, ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'integrations';
const SLUG = pathParameter('slug', 'the integration\'s id or slug', { type: 'string', pattern: INTEGRATION_SLUG_PATTERN });
const CREDENTIALS = 'The key and every secret configuration are sealed at rest and never shown: reads give `masked_key` and `********`.';
const CONFIGURATIONS = '`configurations` takes what the gateway reads for the provider: `custom_host` (checked by the SSRF rules) and the settings its adapter declares; anything else is a 400 naming `configurations.<field>`.';
const MASKED = 'A secret sent back as it is shown (`********`, or the key\'s `masked_key`) keeps the stored value.';
const MANAGERS = 'Organisation integrations: admin keys. Workspace integrations: the workspace\'s managers too.';
const OK = { description: 'done', schema: ref('EmptyObject') };

export function integrationPaths(): Paths {
  return {
    '/integrations': {
      post: adminOperation({
        operationId: 'createIntegration',
        summary: 'Store a provider\'s credentials and settings',
        tag: TAG,
        scope: 'integrations.create',
        description: [CREDENTIALS, CONFIGURATIONS, 'Without `workspace_id` an admin key creates an organisation integration; a workspace key always creates one of its own workspace.', '`create_default_provider` (default true) also creates the provider `@<default_provider_slug or slug>`.'].join(' '),
        body: 'CreateIntegrationRequest',
        answer: { description: 'the new integration', schema: ref('IntegrationReference') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug, or the default provider\'s slug, is taken' },
      }),
      get: adminOperation({
        operationId: 'listIntegrations',
        summary: 'List integrations',
        tag: TAG,
        scope: 'integrations.list',
        parameters: [
          ...pageParameters({ defaultSize: 100, maxSize: 1000 }),
          queryParameter('workspace_id', 'the integrations this workspace (id or slug) may use; a workspace key sees its own workspace\'s only'),
          queryParameter('type', 'organisation or workspace integrations only', { type: 'string', enum: ['workspace', 'organisation', 'all'], default: 'all' }),
        ],
        answer: { description: 'the integrations the caller can see', schema: listRef('IntegrationSummary', 'integrations') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/integrations/{slug}': {
      get: adminOperation({
        operationId: 'getIntegration',
        summary: 'Get an integration, credentials masked',
        tag: TAG,
        scope: 'integrations.read',
        description: CREDENTIALS,
        parameters: [SLUG],
        answer: { description: 'the integration', schema: ref('IntegrationDetails') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateIntegration',
        summary: 'Update an integration',
        tag: TAG,
        scope: 'integrations.update',
        description: [MANAGERS, CONFIGURATIONS, '`configurations` is replaced as a whole.', MASKED].join(' '),
        parameters: [SLUG],
        body: 'UpdateIntegrationRequest',
        answer: OK,
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteIntegration',
        summary: 'Delete (archive) an integration; the providers on it stop resolving',
        tag: TAG,
        scope: 'integrations.delete',
        description: MANAGERS,
        parameters: [SLUG],
        answer: OK,
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/integrations/{slug}/models': {
      get: adminOperation({
        operationId: 'listIntegrationModels',
        summary: 'List the models set on an integration',
        tag: TAG,
        scope: 'integrations.read',
        parameters: [SLUG],
        answer: { description: 'the models, and whether every other model of the provider is allowed', schema: ref('IntegrationModelList') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateIntegrationModels',
        summary: 'Enable, disable or add models (custom models with their price)',
        tag: TAG,
        scope: 'integrations.update',
        description: `${MANAGERS} A custom model needs \`pricing_config\`.`,
        parameters: [SLUG],
        body: 'UpdateIntegrationModelsRequest',
        answer: OK,
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteIntegrationModels',
        summary: 'Delete custom models',
        tag: TAG,
        scope: 'integrations.update',
        description: MANAGERS,
        parameters: [SLUG, queryParameter('slugs', 'the custom models to delete, comma-separated', { type: 'string', minLength: 1, maxLength: 30000 }, true)],
        answer: OK,
        errors: { 404: 'the integration, or one of the models, is not found' },
      }),
    },
    '/integrations/{slug}/workspaces': {
      get: adminOperation({
        operationId: 'listIntegrationWorkspaces',
        summary: 'Which workspaces may use an integration',
        tag: TAG,
        scope: 'integrations.read',
        description: 'Organisation integrations: admin keys only (the list names other workspaces).',
        parameters: [SLUG],
        answer: { description: 'the workspace settings and the global one', schema: ref('IntegrationWorkspaceList') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateIntegrationWorkspaces',
        summary: 'Enable or disable an organisation integration per workspace, or for all',
        tag: TAG,
        scope: 'integrations.update',
        description: 'Admin keys only. A workspace enabled here gets a provider on the integration unless `create_default_provider` is false.',
        parameters: [SLUG],
        body: 'UpdateIntegrationWorkspacesRequest',
        answer: OK,
        errors: { 404: 'the integration, or a listed workspace, is not found', 409: 'a default provider\'s slug is taken in a workspace' },
      }),
    },
  };
}
