/** Bodies of the PromptPartials group (api-surface §3.11). */
import { Type, type Static } from '@sinclair/typebox';
import type { CreatePartialInput, UpdatePartialInput } from '../../../domain/prompt-partials/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import { ID_OR_SLUG_PATTERN } from '../prompt-collections/schemas.ts';

/** A partial's slug: what a prompt writes in `{{> slug}}`, so mustache's tag alphabet and no more. */
export const PARTIAL_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
/** A template text; large enough for long instructions and examples, small enough for one row. */
export const MAX_PARTIAL_LENGTH = 200_000;

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Template = Type.String({ minLength: 1, maxLength: MAX_PARTIAL_LENGTH, description: 'a mustache template' });
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

export const CreatePartialSchema = Type.Object(
  {
    name: Name,
    string: Template,
    slug: Type.Optional(Type.String({ pattern: PARTIAL_SLUG_PATTERN, description: 'how prompts include it (`{{> slug}}`); generated from the name when absent' })),
    workspace_id: Type.Optional(Type.String({ pattern: ID_OR_SLUG_PATTERN, description: 'id or slug; required for admin keys' })),
    collection_id: Type.Optional(Type.Union([Type.String({ pattern: ID_OR_SLUG_PATTERN }), Type.Null()])),
    version_description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export type CreatePartialBody = Static<typeof CreatePartialSchema>;

export const UpdatePartialSchema = Type.Object(
  {
    name: Type.Optional(Name),
    string: Type.Optional(Template),
    description: Type.Optional(Description),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
  },
  { additionalProperties: false },
);
export type UpdatePartialBody = Static<typeof UpdatePartialSchema>;

export const MakePartialDefaultSchema = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) },
  { additionalProperties: false },
);

export const validateCreatePartial: BodyValidator<CreatePartialInput> = makeValidator(CreatePartialSchema, () => {});
export const validateUpdatePartial: BodyValidator<UpdatePartialInput> = makeValidator(UpdatePartialSchema, () => {});
export const validateMakePartialDefault: BodyValidator<{ version: number }> = makeValidator(MakePartialDefaultSchema, () => {});
