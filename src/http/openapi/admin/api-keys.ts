/** The API keys group (src/http/admin/api-keys/routes.ts). The scope depends on the key's kind, so the use cases check it. */
import { KEY_KINDS } from '../../../domain/api-keys/kinds.ts';
import { listRef, ref } from '../components.ts';
import { UUID_SCHEMA, WORKSPACE_FILTER, pageParameters, pathParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'api-keys';
const ID = pathParameter('id', 'the key\'s id', UUID_SCHEMA);
const KIND_SCOPES = 'The scope is `<kind>.<action>` for the key\'s kind: `organisation_service_api_keys`, `workspace_service_api_keys` or `workspace_user_api_keys`.';

export function apiKeyPaths(): Paths {
  return {
    '/api-keys/{type}/{subType}': {
      post: adminOperation({
        operationId: 'createApiKey',
        summary: 'Create an API key',
        tag: TAG,
        description: `The kinds are organisation/service (an admin key), workspace/service and workspace/user; a workspace key needs workspace_id. The secret is in this answer only. ${KIND_SCOPES}`,
        parameters: [
          pathParameter('type', 'organisation or workspace', { type: 'string', enum: [...new Set(KEY_KINDS.map((kind) => kind.type))] }),
          pathParameter('subType', 'service or user (user: workspace keys only)', { type: 'string', enum: [...new Set(KEY_KINDS.map((kind) => kind.subType))] }),
        ],
        body: 'CreateApiKeyRequest',
        answer: { description: 'the new key, with its secret', schema: ref('ApiKeyCreated') },
        errors: { 404: 'the workspace or user is not found, or not visible to the caller' },
      }),
    },
    '/api-keys': {
      get: adminOperation({
        operationId: 'listApiKeys',
        summary: 'List API keys',
        tag: TAG,
        description: `The kinds the caller may list (holds \`<kind>.list\` for); a workspace key sees its workspace's keys only. ${KIND_SCOPES}`,
        parameters: [...pageParameters({ defaultSize: 50, maxSize: 100 }), WORKSPACE_FILTER],
        answer: { description: 'the keys, secrets masked', schema: listRef('ApiKey', 'API keys') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/api-keys/{id}': {
      get: adminOperation({
        operationId: 'getApiKey',
        summary: 'Get an API key',
        tag: TAG,
        description: KIND_SCOPES,
        parameters: [ID],
        answer: { description: 'the key, its secret masked', schema: ref('ApiKey') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateApiKey',
        summary: 'Update an API key',
        tag: TAG,
        description: `Takes effect on every node at once (cached credentials are dropped). ${KIND_SCOPES}`,
        parameters: [ID],
        body: 'UpdateApiKeyRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteApiKey',
        summary: 'Delete an API key',
        tag: TAG,
        description: KIND_SCOPES,
        parameters: [ID],
        answer: { description: 'deleted: the key no longer authenticates, on any node', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/api-keys/{id}/rotate': {
      post: adminOperation({
        operationId: 'rotateApiKey',
        summary: 'Rotate an API key',
        tag: TAG,
        description: `A new secret; the old one keeps working until key_transition_expires_at. ${KIND_SCOPES}`,
        parameters: [ID],
        body: 'RotateApiKeyRequest',
        bodyRequired: false,
        answer: { description: 'the new secret', schema: ref('ApiKeyRotated') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
