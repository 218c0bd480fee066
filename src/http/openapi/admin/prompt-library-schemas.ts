/**
 * Schemas of the Collections, Labels and PromptPartials groups: the request bodies (the validating constants
 * themselves) and the answers. Spread into components.schemas by document.ts.
 */
import { Type } from '@sinclair/typebox';
import { CreateLabelSchema, UpdateLabelSchema } from '../../admin/labels/schemas.ts';
import { CreateCollectionSchema, UpdateCollectionSchema } from '../../admin/prompt-collections/schemas.ts';
import { CreatePartialSchema, MakePartialDefaultSchema, UpdatePartialSchema } from '../../admin/prompt-partials/schemas.ts';
import { asComponent } from '../components.ts';
import { NullableString, NullableTimestamp, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';
import type { JsonSchema, Operation } from '../types.ts';

const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);
const ref = (name: PromptLibrarySchemaName) => Type.Unsafe({ $ref: `#/components/schemas/${name}` });

const collection = {
  id: Uuid,
  name: Type.String(),
  workspace_id: Uuid,
  slug: Type.String(),
  parent_collection_id: NullableUuid,
  is_default: Type.Boolean({ description: 'the workspace\'s default collection: prompts made without one land here; it cannot be deleted' }),
  status: Status,
  created_at: Timestamp,
  last_updated_at: Timestamp,
};

const CollectionDetails = Type.Object({
  child_collections_count: Type.Integer({ minimum: 0 }),
  prompts_count: Type.Integer({ minimum: 0 }),
  child_collections_last_updated_at: NullableTimestamp,
  prompts_last_updated_at: NullableTimestamp,
}, { description: 'active sub-collections and prompts directly in the collection' });

const CollectionWithDetails = Type.Object({ ...collection, collection_details: CollectionDetails });

const CollectionWithChildCollections = Type.Object({
  ...collection,
  collection_details: CollectionDetails,
  child_collections: Type.Array(Type.Object({ id: Uuid, name: Type.String(), slug: Type.String(), last_updated_at: Timestamp, collection_details: CollectionDetails })),
});

const Label = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: NullableString,
  color_code: NullableString,
  organisation_id: Uuid,
  workspace_id: Type.Union([Uuid, Type.Null()], { description: 'null: organisation-wide' }),
  is_universal: Type.Boolean({ description: 'organisation-wide: usable by every workspace' }),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  status: Status,
});

const partial = {
  id: Uuid,
  slug: Type.String({ description: 'how prompts include it: `{{> slug}}`' }),
  name: Type.String(),
  collection_id: NullableUuid,
  workspace_id: Uuid,
  created_at: Timestamp,
  last_updated_at: Timestamp,
  status: Status,
};

const PartialSummary = Type.Object({ ...partial, object: Type.Literal('partial') });

const Partial = Type.Object({
  ...partial,
  string: Type.String({ description: 'the default version\'s template' }),
  version: Type.Integer({ minimum: 1, description: 'the default version' }),
  version_description: NullableString,
  prompt_partial_version_id: Uuid,
});

const PartialVersion = Type.Object({
  prompt_partial_id: Uuid,
  prompt_partial_version_id: Uuid,
  slug: Type.String(),
  version: Type.String({ pattern: '^[0-9]+$', description: 'the version number, as a string (as in the reference)' }),
  string: Type.String(),
  description: NullableString,
  is_default: Type.Boolean(),
  created_at: Timestamp,
  prompt_version_status: Status,
  object: Type.Literal('partial'),
});

const list = (name: PromptLibrarySchemaName, description: string) =>
  Type.Object({ object: Type.Literal('list'), total: Type.Integer({ minimum: 0 }), data: Type.Array(ref(name)) }, { description });

const SCHEMAS = {
  CreateCollectionRequest: CreateCollectionSchema,
  UpdateCollectionRequest: UpdateCollectionSchema,
  CreateLabelRequest: CreateLabelSchema,
  UpdateLabelRequest: UpdateLabelSchema,
  CreatePromptPartialRequest: CreatePartialSchema,
  UpdatePromptPartialRequest: UpdatePartialSchema,
  MakePromptPartialDefaultRequest: MakePartialDefaultSchema,
  CollectionWithDetails,
  CollectionWithChildCollections,
  CollectionCreated: Type.Object({ id: Uuid, slug: Type.String() }),
  Label,
  LabelCreated: Type.Object({ id: Uuid }),
  PromptPartialSummary: PartialSummary,
  PromptPartial: Partial,
  PromptPartialVersion: PartialVersion,
  PromptPartialCreated: Type.Object({ id: Uuid, slug: Type.String(), version_id: Uuid }),
  PromptPartialUpdated: Type.Object({ prompt_partial_version_id: Uuid }, { description: 'the version the update made, or the default one when it made none' }),
} as const;

// the lists refer to entries by their typed name, so they are built apart from (and after) the entries
const LISTS = {
  CollectionList: () => list('CollectionWithDetails', 'one workspace\'s collections, with their counts'),
  LabelList: () => list('Label', 'the labels the caller sees'),
  PromptPartialList: () => Type.Array(ref('PromptPartialSummary'), { description: 'a bare array (as in the reference)' }),
  PromptPartialVersionList: () => Type.Array(ref('PromptPartialVersion'), { description: 'a bare array, newest first (as in the reference)' }),
} as const;

export type PromptLibrarySchemaName = keyof typeof SCHEMAS | keyof typeof LISTS;

export function libraryRef(name: PromptLibrarySchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** adminOperation with a request body from these components. */
export function withLibraryBody(operation: Operation, body: PromptLibrarySchemaName): Operation {
  return { ...operation, requestBody: { required: true, content: { 'application/json': { schema: libraryRef(body) } } } };
}

export function promptLibraryComponents(): Record<string, JsonSchema> {
  const lists = Object.entries(LISTS).map(([name, build]) => [name, build()] as const);
  return Object.fromEntries([...Object.entries(SCHEMAS), ...lists].map(([name, schema]) => [name, asComponent(name, schema)]));
}
