/** Saved routing configs (src/http/admin/configs/routes.ts): the reference's `{success, data}` envelopes, one list shape. */
import { CONFIG_SLUG_PATTERN } from '../../admin/configs/schemas.ts';
import { listRef, ref } from '../components.ts';
import { WORKSPACE_FILTER, pageParameters, pathParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'configs';
const SLUG = pathParameter('slug', 'the config\'s id or slug', { type: 'string', pattern: CONFIG_SLUG_PATTERN });
const PAGE = pageParameters({ defaultSize: 100, maxSize: 1000 });
const CONFIG_RULES = 'The `config` object is checked against components.schemas.GatewayConfig and the known providers; errors name the path inside it (`config.targets[1].retry.attempts`). Credentials in it are sealed at rest and masked in answers; a PUT that sends a mask back where a credential is stored (same key, arrays by index) keeps the stored one, and a mask with nothing stored at its place is a 400 naming it.';

export function configPaths(): Paths {
  return {
    '/configs': {
      post: adminOperation({
        operationId: 'createConfig',
        summary: 'Save a routing config',
        tag: TAG,
        scope: 'configs.create',
        description: CONFIG_RULES,
        body: 'CreateConfigRequest',
        answer: { description: 'the new config and its first version', schema: ref('ConfigCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug is taken' },
      }),
      get: adminOperation({
        operationId: 'listConfigs',
        summary: 'List saved configs',
        tag: TAG,
        scope: 'configs.list',
        parameters: [...PAGE, WORKSPACE_FILTER],
        answer: { description: 'the configs the caller can see', schema: listRef('ConfigSummary', 'saved configs') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/configs/{slug}': {
      get: adminOperation({
        operationId: 'getConfig',
        summary: 'Get a saved config',
        tag: TAG,
        scope: 'configs.read',
        parameters: [SLUG],
        answer: { description: 'the config and its current version', schema: ref('ConfigDetails') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateConfig',
        summary: 'Update a saved config (a new version)',
        tag: TAG,
        scope: 'configs.update',
        description: `At least one field. ${CONFIG_RULES}`,
        parameters: [SLUG],
        body: 'UpdateConfigRequest',
        answer: { description: 'the new version', schema: ref('ConfigUpdated') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteConfig',
        summary: 'Archive a saved config',
        tag: TAG,
        scope: 'configs.delete',
        parameters: [SLUG],
        answer: { description: 'archived', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/configs/{slug}/versions': {
      get: adminOperation({
        operationId: 'listConfigVersions',
        summary: 'List the versions of a saved config',
        tag: TAG,
        scope: 'configs.read',
        description: 'Newest first.',
        parameters: [SLUG, ...PAGE],
        answer: { description: 'the versions', schema: listRef('ConfigVersion', 'config versions') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
