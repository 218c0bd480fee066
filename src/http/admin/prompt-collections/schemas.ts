/** Bodies of the Collections group (api-surface §3.12). */
import { Type, type Static } from '@sinclair/typebox';
import type { CreateCollectionInput, UpdateCollectionInput } from '../../../domain/prompt-collections/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

/** A collection, workspace or partial named by its UUID or its slug. */
export const ID_OR_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Parent = Type.Union([Type.String({ pattern: ID_OR_SLUG_PATTERN }), Type.Null()], {
  description: 'a collection of the same workspace (id or slug); null: at the top',
});

export const CreateCollectionSchema = Type.Object(
  {
    name: Name,
    workspace_id: Type.Optional(Type.String({ pattern: ID_OR_SLUG_PATTERN, description: 'id or slug; required for admin keys' })),
    parent_collection_id: Type.Optional(Parent),
  },
  { additionalProperties: false },
);
export type CreateCollectionBody = Static<typeof CreateCollectionSchema>;

export const UpdateCollectionSchema = Type.Object(
  {
    name: Type.Optional(Name),
    parent_collection_id: Type.Optional(Parent),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCollectionBody = Static<typeof UpdateCollectionSchema>;

export const validateCreateCollection: BodyValidator<CreateCollectionInput> = makeValidator(CreateCollectionSchema, () => {});
export const validateUpdateCollection: BodyValidator<UpdateCollectionInput> = makeValidator(UpdateCollectionSchema, () => {});
