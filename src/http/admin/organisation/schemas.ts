/** The body of PUT /admin/organisation: its name and the JWT settings. */
import { Type } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import type { UpdateOrganisationInput } from '../../../domain/organisation/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const JwtSettingsSchema = Type.Object(
  {
    jwks_url: Type.String({ minLength: 1, maxLength: 2048 }),
    issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const UpdateOrganisationSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    settings: Type.Optional(Type.Object({ jwt: Type.Optional(Type.Union([JwtSettingsSchema, Type.Null()])) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const validateUpdateOrganisation: BodyValidator<UpdateOrganisationInput> = makeValidator(UpdateOrganisationSchema, (body) => {
  const url = body.settings?.jwt?.jwks_url;
  if (url !== undefined && !/^https?:\/\//.test(url)) throw invalidParam('settings.jwt.jwks_url', 'settings.jwt.jwks_url must be an http(s) URL.');
});
