/** Prompts (src/http/admin/prompts/routes.ts), addressed by id or slug; versions by id. */
import { PROMPT_SLUG_PATTERN } from '../../admin/prompts/schemas.ts';
import { listRef, ref } from '../components.ts';
import { WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'prompts';
const ID = pathParameter('promptId', 'the prompt\'s id or slug', { type: 'string', pattern: PROMPT_SLUG_PATTERN });
const VERSION_ID = pathParameter('versionId', 'the version\'s id', { type: 'string', format: 'uuid' });
const TEMPLATE = 'The template (`string`) is a JSON array of chat messages whose texts are mustache templates, or plain text (one user message); it must parse, else a 400 names where.';

export function promptPaths(): Paths {
  return {
    '/prompts': {
      post: adminOperation({
        operationId: 'createPrompt',
        summary: 'Create a prompt (its version 1, the default)',
        tag: TAG,
        scope: 'prompts.create',
        description: `${TEMPLATE} Without collection_id the prompt goes to its workspace's default collection.`,
        body: 'CreatePromptRequest',
        answer: { description: 'the new prompt and its first version', schema: ref('PromptCreated') },
        errors: { 404: 'the workspace or collection is not found, or not visible to the caller', 409: 'the slug is taken in the workspace' },
      }),
      get: adminOperation({
        operationId: 'listPrompts',
        summary: 'List prompts',
        tag: TAG,
        scope: 'prompts.list',
        parameters: [
          ...pageParameters({ defaultSize: 100, maxSize: 1000 }),
          WORKSPACE_FILTER,
          queryParameter('collection_id', 'only this collection (id or slug)'),
          queryParameter('search', 'a part of the name or slug, any case'),
        ],
        answer: { description: 'the prompts the caller can see', schema: listRef('PromptSummary', 'prompts') },
        errors: { 404: 'the workspace or collection filter names one the caller cannot see' },
      }),
    },
    '/prompts/{promptId}': {
      get: adminOperation({
        operationId: 'getPrompt',
        summary: 'Get a prompt at its default version',
        tag: TAG,
        scope: 'prompts.read',
        parameters: [ID],
        answer: { description: 'the prompt', schema: ref('Prompt') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updatePrompt',
        summary: 'Update a prompt; a change to its template fields makes a new version',
        tag: TAG,
        scope: 'prompts.update',
        description: `${TEMPLATE} With patch: true, version fields left out are copied from the latest version. A new version becomes the default only through makeDefault.`,
        parameters: [ID],
        body: 'UpdatePromptRequest',
        answer: { description: 'updated', schema: ref('PromptUpdated') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deletePrompt',
        summary: 'Delete (archive) a prompt',
        tag: TAG,
        scope: 'prompts.delete',
        parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/prompts/{promptId}/versions': {
      get: adminOperation({
        operationId: 'getPromptVersions',
        summary: 'List a prompt\'s versions, newest first (a bare array, as the reference answers)',
        tag: TAG,
        scope: 'prompts.read',
        parameters: [ID],
        answer: { description: 'the versions', schema: { type: 'array', items: ref('PromptVersionSummary') } },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/prompts/{promptId}/versions/{versionId}': {
      get: adminOperation({
        operationId: 'getPromptByVersion',
        summary: 'Get a prompt at one version',
        tag: TAG,
        scope: 'prompts.read',
        parameters: [ID, VERSION_ID],
        answer: { description: 'the prompt at that version', schema: ref('Prompt') },
        errors: { 404: `the prompt or version is ${NOT_FOUND_OR_HIDDEN}` },
      }),
      put: adminOperation({
        operationId: 'updatePromptVersion',
        summary: 'Move a label onto a version (versions are otherwise immutable)',
        tag: TAG,
        scope: 'prompts.publish',
        description: 'The label leaves the prompt\'s other version in the same transaction; `label_id: null` takes the version\'s label off.',
        parameters: [ID, VERSION_ID],
        body: 'LabelPromptVersionRequest',
        answer: { description: 'labelled', schema: ref('EmptyObject') },
        errors: { 404: `the prompt, version or label is ${NOT_FOUND_OR_HIDDEN}` },
      }),
    },
    '/prompts/{promptId}/makeDefault': {
      put: adminOperation({
        operationId: 'updatePromptDefault',
        summary: 'Publish a version: the one served when a request names none',
        tag: TAG,
        scope: 'prompts.publish',
        parameters: [ID],
        body: 'MakeDefaultPromptVersionRequest',
        answer: { description: 'published', schema: ref('EmptyObject') },
        errors: { 404: `the prompt or version is ${NOT_FOUND_OR_HIDDEN}` },
      }),
    },
  };
}
