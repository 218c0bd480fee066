/** POST /embeddings request body. Unknown fields are allowed and forwarded untouched. */
import { Type } from '@sinclair/typebox';
import { Model, OPEN, StringEnum } from './common.ts';

const BATCH = { minItems: 1, maxItems: 2048 } as const;

/** A string, or 1..2048 strings, token ids, or non-empty token-id arrays. */
export const EmbeddingInputSchema = Type.Union([
  Type.String(),
  Type.Array(Type.String(), BATCH),
  Type.Array(Type.Integer(), BATCH),
  Type.Array(Type.Array(Type.Integer(), { minItems: 1 }), BATCH),
]);

export const EmbeddingRequestSchema = Type.Object(
  {
    model: Model,
    input: EmbeddingInputSchema,
    encoding_format: Type.Optional(StringEnum(['float', 'base64'] as const)),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String()),
  },
  OPEN,
);
