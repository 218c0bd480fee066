/** Prompt partials (src/http/admin/prompt-partials/routes.ts), addressed by id or slug. */
import { PARTIAL_SLUG_PATTERN } from '../../admin/prompt-partials/schemas.ts';
import { ref } from '../components.ts';
import { pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';
import { libraryRef, withLibraryBody } from './prompt-library-schemas.ts';

const TAG = 'prompt-partials';
const ID = pathParameter('promptPartialId', 'the partial\'s id or slug', { type: 'string', pattern: PARTIAL_SLUG_PATTERN });
const WRITES = 'Managers of the workspace (and organisation admins); members read only.';

export function promptPartialPaths(): Paths {
  return {
    '/prompts/partials': {
      post: withLibraryBody(adminOperation({
        operationId: 'createPromptPartial',
        summary: 'Create a prompt partial',
        tag: TAG,
        scope: 'prompt_partials.create',
        description: `${WRITES} Its version 1 is the default. A template mustache cannot parse is a 400 naming \`string\`.`,
        answer: { description: 'the new partial and its first version', schema: libraryRef('PromptPartialCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug is taken' },
      }), 'CreatePromptPartialRequest'),
      get: adminOperation({
        operationId: 'listPromptPartials',
        summary: 'List prompt partials',
        tag: TAG,
        scope: 'prompt_partials.list',
        parameters: [
          queryParameter('collection_id', 'only this collection\'s (id or slug)'),
          queryParameter('workspace_id', 'only this workspace\'s (id or slug); a workspace key sees its own only'),
        ],
        answer: { description: 'the partials the caller sees', schema: libraryRef('PromptPartialList') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/prompts/partials/{promptPartialId}': {
      get: adminOperation({
        operationId: 'getPromptPartial',
        summary: 'Get a prompt partial',
        tag: TAG,
        scope: 'prompt_partials.read',
        parameters: [ID],
        answer: { description: 'the partial with its default version', schema: libraryRef('PromptPartial') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: withLibraryBody(adminOperation({
        operationId: 'updatePromptPartial',
        summary: 'Update a prompt partial',
        tag: TAG,
        scope: 'prompt_partials.update',
        description: `${WRITES} A new \`string\` adds a version (the previous highest + 1), which becomes the default only through makeDefault; \`name\` and \`status\` change the partial without a version.`,
        parameters: [ID],
        answer: { description: 'updated', schema: libraryRef('PromptPartialUpdated') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }), 'UpdatePromptPartialRequest'),
      delete: adminOperation({
        operationId: 'deletePromptPartial',
        summary: 'Delete (archive) a prompt partial',
        tag: TAG,
        scope: 'prompt_partials.delete',
        description: WRITES,
        parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/prompts/partials/{promptPartialId}/versions': {
      get: adminOperation({
        operationId: 'getPromptPartialVersions',
        summary: 'List a prompt partial\'s versions',
        tag: TAG,
        scope: 'prompt_partials.read',
        parameters: [ID],
        answer: { description: 'every version, newest first', schema: libraryRef('PromptPartialVersionList') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/prompts/partials/{promptPartialId}/makeDefault': {
      put: withLibraryBody(adminOperation({
        operationId: 'updatePromptPartialDefault',
        summary: 'Make a version the default',
        tag: TAG,
        scope: 'prompt_partials.update',
        description: `${WRITES} The default is what \`{{> slug}}\` includes. A version the partial does not have is a 400 naming \`version\`.`,
        parameters: [ID],
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }), 'MakePromptPartialDefaultRequest'),
    },
  };
}
