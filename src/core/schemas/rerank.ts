/** POST /rerank request body. Unknown fields are allowed and forwarded untouched. */
import { Type } from '@sinclair/typebox';
import { Model, OPEN } from './common.ts';

/** A document is a string or an object with a `text` string (other keys are allowed). */
export const RerankDocumentSchema = Type.Union([Type.String(), Type.Object({ text: Type.String() }, OPEN)]);

export const RerankRequestSchema = Type.Object(
  {
    model: Model,
    query: Type.String(),
    documents: Type.Array(RerankDocumentSchema, { minItems: 1 }),
    top_n: Type.Optional(Type.Integer({ minimum: 1 })),
    return_documents: Type.Optional(Type.Boolean()),
    max_tokens_per_doc: Type.Optional(Type.Integer({ minimum: 1 })),
    max_chunks_per_doc: Type.Optional(Type.Integer({ minimum: 1 })),
    priority: Type.Optional(Type.Number()),
    rank_fields: Type.Optional(Type.Array(Type.String())),
    truncation: Type.Optional(Type.Boolean()),
    parameters: Type.Optional(Type.Object({}, OPEN)),
  },
  OPEN,
);
