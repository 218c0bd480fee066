/** Bodies of the Labels group (api-surface §3.13). */
import { Type, type Static } from '@sinclair/typebox';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreateLabelInput, UpdateLabelInput } from '../../../domain/labels/inputs.ts';
import { LABEL_NAME_PATTERN } from '../../../domain/labels/name.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import { ID_OR_SLUG_PATTERN } from '../prompt-collections/schemas.ts';

export const COLOR_CODE_PATTERN = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$';

const Name = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: LABEL_NAME_PATTERN,
  description: 'not `latest`, `default` or all digits; at most one character outside [A-Za-z0-9_-], never `@` or whitespace',
});
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);
const ColorCode = Type.Union([Type.String({ pattern: COLOR_CODE_PATTERN, description: 'a CSS hex colour, `#16A34A`' }), Type.Null()]);

export const CreateLabelSchema = Type.Object(
  {
    name: Name,
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
    workspace_id: Type.Optional(Type.String({ pattern: ID_OR_SLUG_PATTERN, description: 'id or slug; absent: the caller\'s workspace, or organisation-wide for an admin key' })),
    description: Type.Optional(Description),
    color_code: Type.Optional(ColorCode),
  },
  { additionalProperties: false },
);
export type CreateLabelBody = Static<typeof CreateLabelSchema>;

export const UpdateLabelSchema = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    color_code: Type.Optional(ColorCode),
  },
  { additionalProperties: false },
);
export type UpdateLabelBody = Static<typeof UpdateLabelSchema>;

export const validateCreateLabel: BodyValidator<CreateLabelInput> = makeValidator(CreateLabelSchema, () => {});
export const validateUpdateLabel: BodyValidator<UpdateLabelInput> = makeValidator(UpdateLabelSchema, () => {});
