/** Prompt labels (src/http/admin/labels/routes.ts), addressed by id. */
import { ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter, UUID_SCHEMA } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';
import { libraryRef, withLibraryBody } from './prompt-library-schemas.ts';

const TAG = 'labels';
const ID = pathParameter('labelId', 'the label\'s id', UUID_SCHEMA);
const WRITES = 'A workspace label: managers of the workspace (and organisation admins). An organisation-wide one: admin keys only.';
const ORGANISATION = queryParameter('organisation_id', 'the caller\'s organisation (another is a 400)', UUID_SCHEMA);
const WORKSPACE = queryParameter('workspace_id', 'only this workspace\'s labels and the organisation-wide ones (id or slug)');

export function labelPaths(): Paths {
  return {
    '/labels': {
      post: withLibraryBody(adminOperation({
        operationId: 'createLabel',
        summary: 'Create a label',
        tag: TAG,
        scope: 'labels.create',
        description: `${WRITES} A name already used where the label would be seen is a 409.`,
        answer: { description: 'the new label', schema: libraryRef('LabelCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the name is taken' },
      }), 'CreateLabelRequest'),
      get: adminOperation({
        operationId: 'listLabels',
        summary: 'List labels',
        tag: TAG,
        scope: 'labels.list',
        description: 'An organisation\'s first list adds the organisation-wide labels production, staging and development.',
        parameters: [ORGANISATION, WORKSPACE, queryParameter('search', 'a part of the name, case-insensitive'), ...pageParameters({ defaultSize: 100, maxSize: 1000 })],
        answer: { description: 'the labels the caller sees', schema: libraryRef('LabelList') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/labels/{labelId}': {
      get: adminOperation({
        operationId: 'getLabel',
        summary: 'Get a label',
        tag: TAG,
        scope: 'labels.read',
        parameters: [ID, ORGANISATION, WORKSPACE],
        answer: { description: 'the label', schema: libraryRef('Label') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: withLibraryBody(adminOperation({
        operationId: 'updateLabel',
        summary: 'Update a label',
        tag: TAG,
        scope: 'labels.update',
        description: WRITES,
        parameters: [ID],
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the name is taken' },
      }), 'UpdateLabelRequest'),
      delete: adminOperation({
        operationId: 'deleteLabel',
        summary: 'Delete (archive) a label',
        tag: TAG,
        scope: 'labels.delete',
        description: `${WRITES} The prompt versions it marked lose it.`,
        parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
