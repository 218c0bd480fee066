/** Providers (src/http/admin/providers/routes.ts): workspace handles onto an integration, addressed by id or slug. */
import { PROVIDER_SLUG_PATTERN } from '../../admin/providers/schemas.ts';
import { listRef, ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'providers';
const SLUG = pathParameter('slug', 'the provider\'s id or slug', { type: 'string', pattern: PROVIDER_SLUG_PATTERN });
const WORKSPACE = queryParameter('workspace_id', 'the workspace (id or slug) whose slug {slug} is; default: the caller\'s (an admin key\'s: the default workspace)');
const MANAGERS = 'A workspace\'s managers (and organisation admins) change its providers; its members read them.';
const USE = 'Requests use a provider as `x-gateway-provider: @<slug>`, a model `@<slug>/<model>`, `x-gateway-virtual-key: <slug>` or a config target\'s `provider: "@<slug>"`, with no provider key of their own.';

export function providerPaths(): Paths {
  return {
    '/providers': {
      post: adminOperation({
        operationId: 'createProvider',
        summary: 'Create a provider on an integration the workspace may use',
        tag: TAG,
        scope: 'providers.create',
        description: [USE, MANAGERS, '`rate_limits` takes one limit or a list.'].join(' '),
        body: 'CreateProviderRequest',
        answer: { description: 'the new provider', schema: ref('ProviderReference') },
        errors: {
          403: 'the integration is not enabled for the workspace, or the caller does not manage it',
          404: 'the integration or the workspace is not found, or not visible to the caller',
          409: 'the slug is taken in the workspace',
        },
      }),
      get: adminOperation({
        operationId: 'listProviders',
        summary: 'List a workspace\'s providers',
        tag: TAG,
        scope: 'providers.list',
        description: '`workspace_id` is required with an organisation key.',
        parameters: [...pageParameters({ defaultSize: 50, maxSize: 1000 }), queryParameter('workspace_id', 'the workspace (id or slug); a workspace key lists its own')],
        answer: { description: 'the workspace\'s providers', schema: listRef('Provider', 'providers') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }),
    },
    '/providers/{slug}': {
      get: adminOperation({
        operationId: 'getProvider',
        summary: 'Get a provider',
        tag: TAG,
        scope: 'providers.read',
        parameters: [SLUG, WORKSPACE],
        answer: { description: 'the provider', schema: ref('Provider') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateProvider',
        summary: 'Update a provider',
        tag: TAG,
        scope: 'providers.update',
        description: `${MANAGERS} \`reset_usage: true\` restarts its usage count; \`expires_at: null\` removes its expiry.`,
        parameters: [SLUG, WORKSPACE],
        body: 'UpdateProviderRequest',
        answer: { description: 'the provider', schema: ref('ProviderReference') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteProvider',
        summary: 'Delete (archive) a provider; its slug stops resolving',
        tag: TAG,
        scope: 'providers.delete',
        description: MANAGERS,
        parameters: [SLUG, WORKSPACE],
        answer: { description: 'archived', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
