/** The legacy virtual keys (src/http/admin/virtual-keys/routes.ts): providers holding their own key. */
import { PROVIDER_SLUG_PATTERN } from '../../admin/providers/schemas.ts';
import { listRef, ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'virtual-keys';
const SLUG = pathParameter('slug', 'the virtual key\'s id or slug', { type: 'string', pattern: PROVIDER_SLUG_PATTERN });
const WORKSPACE = queryParameter('workspace_id', 'the workspace (id or slug) whose slug {slug} is; default: the caller\'s (an admin key\'s: the default workspace)');
const KEY = 'The key is sealed at rest and never shown again: reads give `masked_key`.';
const OK = { description: 'done', schema: ref('EmptyObject') };

export function virtualKeyPaths(): Paths {
  return {
    '/virtual-keys': {
      post: adminOperation({
        operationId: 'createVirtualKey',
        summary: 'Create a virtual key: a provider with its own stored key',
        tag: TAG,
        scope: 'virtual_keys.create',
        description: `${KEY} Requests use it as \`x-gateway-virtual-key: <slug>\` or \`x-gateway-provider: @<slug>\`.`,
        body: 'CreateVirtualKeyRequest',
        answer: { description: 'the new virtual key', schema: ref('VirtualKeyCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug is taken in the workspace' },
      }),
      get: adminOperation({
        operationId: 'listVirtualKeys',
        summary: 'List virtual keys',
        tag: TAG,
        scope: 'virtual_keys.list',
        description: 'Without `workspace_id`: a workspace key\'s own workspace, an admin key\'s every workspace.',
        parameters: [...pageParameters({ defaultSize: 50, maxSize: 1000 }), queryParameter('workspace_id', 'only this workspace (id or slug)')],
        answer: { description: 'the virtual keys', schema: listRef('VirtualKey', 'virtual keys') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }),
    },
    '/virtual-keys/{slug}': {
      get: adminOperation({
        operationId: 'getVirtualKey',
        summary: 'Get a virtual key, its key masked',
        tag: TAG,
        scope: 'virtual_keys.read',
        parameters: [SLUG, WORKSPACE],
        answer: { description: 'the virtual key', schema: ref('VirtualKey') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateVirtualKey',
        summary: 'Update a virtual key; a new `key` is what every node sends from then on',
        tag: TAG,
        scope: 'virtual_keys.update',
        parameters: [SLUG, WORKSPACE],
        body: 'UpdateVirtualKeyRequest',
        answer: OK,
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteVirtualKey',
        summary: 'Delete (archive) a virtual key and its stored key',
        tag: TAG,
        scope: 'virtual_keys.delete',
        parameters: [SLUG, WORKSPACE],
        answer: OK,
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
