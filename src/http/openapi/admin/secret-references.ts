/** Secret references (src/http/admin/secret-references/routes.ts), addressed by id or slug. */
import { SECRET_REFERENCE_ID_PATTERN } from '../../admin/secret-references/schemas.ts';
import { MANAGER_TYPES } from '../../../secrets/managers/types.ts';
import { listRef, ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'secret-references';
const ID = pathParameter('secretReferenceId', 'the secret reference\'s id or slug', { type: 'string', pattern: SECRET_REFERENCE_ID_PATTERN });
const WRITES = 'Admin keys only (an organisation owner\'s or admin\'s).';
const READS = 'Admin keys see every reference of the organisation; a workspace key sees the references its workspace may use. A read shows the reference, never the value.';

export function secretReferencePaths(): Paths {
  return {
    '/secret-references': {
      get: adminOperation({
        operationId: 'listSecretReferences',
        summary: 'List secret references',
        tag: TAG,
        scope: 'secret_references.list',
        description: READS,
        parameters: [
          ...pageParameters({ defaultSize: 20, maxSize: 100 }),
          queryParameter('manager_type', 'only references of this manager type', { type: 'string', enum: [...MANAGER_TYPES] }),
          queryParameter('tags', 'comma-separated terms, each `key` (the tag is present) or `key:value`; every term must match', { type: 'string', minLength: 1, maxLength: 1024 }),
          queryParameter('search', 'a part of the name or slug, case-insensitive'),
        ],
        answer: { description: 'the references the caller can see', schema: listRef('SecretReferenceSummary', 'secret references') },
      }),
      post: adminOperation({
        operationId: 'createSecretReference',
        summary: 'Create a secret reference',
        tag: TAG,
        scope: 'secret_references.create',
        description: `${WRITES} auth_config is checked for the manager type and sealed; the value is not fetched.`,
        body: 'CreateSecretReferenceRequest',
        answer: { description: 'the new reference', schema: ref('SecretReferenceCreated') },
        errors: { 409: 'the slug is taken' },
      }),
    },
    '/secret-references/{secretReferenceId}': {
      get: adminOperation({
        operationId: 'getSecretReference',
        summary: 'Get a secret reference',
        tag: TAG,
        scope: 'secret_references.read',
        description: READS,
        parameters: [ID],
        answer: { description: 'the reference, its credentials masked', schema: ref('SecretReferenceDetail') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateSecretReference',
        summary: 'Update a secret reference',
        tag: TAG,
        scope: 'secret_references.update',
        description: `${WRITES} auth_config is replaced as a whole; a secret sent back as \`********\` keeps its stored value.`,
        parameters: [ID],
        body: 'UpdateSecretReferenceRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteSecretReference',
        summary: 'Delete a secret reference',
        tag: TAG,
        scope: 'secret_references.delete',
        description: `${WRITES} Refused (400) while an integration or provider maps a secret to it.`,
        parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
