/** Prompt collections (src/http/admin/prompt-collections/routes.ts), addressed by id or slug. */
import { ID_OR_SLUG_PATTERN } from '../../admin/prompt-collections/schemas.ts';
import { ref } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';
import { libraryRef, withLibraryBody } from './prompt-library-schemas.ts';

const TAG = 'collections';
const ID = pathParameter('collectionId', 'the collection\'s id or slug', { type: 'string', pattern: ID_OR_SLUG_PATTERN });
const WRITES = 'Managers of the workspace (and organisation admins); members read only.';

export function collectionPaths(): Paths {
  return {
    '/collections': {
      post: withLibraryBody(adminOperation({
        operationId: 'createCollection',
        summary: 'Create a prompt collection',
        tag: TAG,
        scope: 'collections.create',
        description: `${WRITES} The parent must be a collection of the same workspace.`,
        answer: { description: 'the new collection', schema: libraryRef('CollectionCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }), 'CreateCollectionRequest'),
      get: adminOperation({
        operationId: 'listCollections',
        summary: 'List one workspace\'s prompt collections',
        tag: TAG,
        scope: 'collections.list',
        parameters: [
          queryParameter('workspace_id', 'the workspace (id or slug); required for organisation keys, a workspace key\'s own by default'),
          ...pageParameters({ defaultSize: 100, maxSize: 1000 }),
          queryParameter('search', 'a part of the name or slug, case-insensitive'),
        ],
        answer: { description: 'the collections, each with its counts', schema: libraryRef('CollectionList') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }),
    },
    '/collections/{collectionId}': {
      get: adminOperation({
        operationId: 'getCollection',
        summary: 'Get a prompt collection',
        tag: TAG,
        scope: 'collections.read',
        parameters: [ID],
        answer: { description: 'the collection, its counts and its direct sub-collections', schema: libraryRef('CollectionWithChildCollections') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: withLibraryBody(adminOperation({
        operationId: 'updateCollection',
        summary: 'Rename or move a prompt collection',
        tag: TAG,
        scope: 'collections.update',
        description: `${WRITES} Moving it under itself or one of its sub-collections is a 400.`,
        parameters: [ID],
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }), 'UpdateCollectionRequest'),
      delete: adminOperation({
        operationId: 'deleteCollection',
        summary: 'Delete (archive) a prompt collection',
        tag: TAG,
        scope: 'collections.delete',
        description: `${WRITES} The workspace's default collection cannot be deleted (404).`,
        parameters: [ID],
        answer: { description: 'deleted', schema: ref('EmptyObject') },
        errors: { 404: `${NOT_FOUND_OR_HIDDEN}, or the default collection`, 409: 'the collection still holds sub-collections, prompts or partials' },
      }),
    },
  };
}
