/**
 * Bodies of the Configs group (api-surface §3.1). These schemas check the envelope; the `config` object itself is
 * the routing config schema's (src/routing/config-schema.ts), applied by the use cases so that its errors name the
 * path inside it (`config.targets[1].retry.attempts`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { StringEnum } from '../../../core/schemas/common.ts';
import type { CreateConfigInput, UpdateConfigInput } from '../../../domain/configs/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

/** Also the `{slug}` path parameter: a config is addressed by its UUID or its slug. */
export const CONFIG_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
/** The reference's camelCase `isDefault`, an integer flag. */
const IsDefault = Type.Integer({ minimum: 0, maximum: 1 });
/** Checked as an object here; what it may hold is parseConfig's call. */
const ConfigObject = Type.Object({}, { additionalProperties: true });

export const CreateConfigSchema = Type.Object(
  {
    name: Name,
    config: ConfigObject,
    isDefault: Type.Optional(IsDefault),
    slug: Type.Optional(Type.String({ pattern: CONFIG_SLUG_PATTERN })),
    /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
    workspace_id: Type.Optional(Type.String({ pattern: CONFIG_SLUG_PATTERN })),
  },
  { additionalProperties: false },
);
export type CreateConfigBody = Static<typeof CreateConfigSchema>;

export const UpdateConfigSchema = Type.Object(
  {
    name: Type.Optional(Name),
    config: Type.Optional(ConfigObject),
    /** `archived` archives the config, as DELETE does */
    status: Type.Optional(StringEnum(['active', 'archived'] as const)),
    isDefault: Type.Optional(IsDefault),
  },
  { additionalProperties: false },
);
export type UpdateConfigBody = Static<typeof UpdateConfigSchema>;

/** A PUT that names nothing would still write a version: refuse it instead. */
function somethingToUpdate(body: UpdateConfigBody): void {
  if (Object.keys(body).length === 0) throw invalidParam('body', 'The body must set at least one of name, config, status or isDefault.');
}

export const validateCreateConfig: BodyValidator<CreateConfigInput> = makeValidator(CreateConfigSchema, () => {});
export const validateUpdateConfig: BodyValidator<UpdateConfigInput> = makeValidator(UpdateConfigSchema, somethingToUpdate);
