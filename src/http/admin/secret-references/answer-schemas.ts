/** Answers of the Secret references group, as src/domain/secret-references/views.ts builds them (for the OpenAPI document). */
import { Type } from '@sinclair/typebox';
import { NullableString, Timestamp, Uuid } from '../../openapi/common-schemas.ts';
import { ManagerTypeSchema } from './schemas.ts';

const summary = {
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  manager_type: ManagerTypeSchema,
  status: Type.Literal('ACTIVE'),
  created_at: Timestamp,
  last_updated_at: Timestamp,
  object: Type.Literal('secret-reference'),
};

export const SecretReferenceSummarySchema = Type.Object(summary);

export const SecretReferenceDetailSchema = Type.Object({
  ...summary,
  organisation_id: Uuid,
  description: NullableString,
  secret_path: Type.String(),
  secret_key: NullableString,
  allow_all_workspaces: Type.Boolean(),
  allowed_workspaces: Type.Array(Uuid, { description: 'a workspace key sees only its own workspace here' }),
  tags: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  created_by: NullableString,
  auth_config: Type.Record(Type.String(), Type.Unknown(), { description: 'the credentials\' public fields; every secret reads `********`' }),
});

export const SecretReferenceCreatedSchema = Type.Object({ id: Uuid, slug: Type.String(), object: Type.Literal('secret-reference') });
