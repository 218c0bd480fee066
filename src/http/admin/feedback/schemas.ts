/** Bodies of the Feedback group (api-surface §3.24): value an integer from -10 to 10, weight 0..1 (default 1), metadata an object. */
import { Type } from '@sinclair/typebox';
import type { CreateFeedbackInput, UpdateFeedbackInput } from '../../../domain/feedback/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

const Value = Type.Integer({ minimum: -10, maximum: 10, description: 'the score, -10 to 10' });
const Weight = Type.Number({ minimum: 0, maximum: 1, description: 'how much the score counts, 0 to 1 (default 1); weighted feedback = value x weight' });
const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.Unknown(), { maxProperties: 64, description: 'anything to keep with the feedback' });

export const CreateFeedbackSchema = Type.Object(
  {
    trace_id: Type.String({ minLength: 1, maxLength: 255, description: 'the trace (x-gateway-trace-id) the feedback is about' }),
    value: Value,
    weight: Type.Optional(Weight),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const UpdateFeedbackSchema = Type.Object(
  { value: Value, weight: Type.Optional(Weight), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);

export const FeedbackAnswerSchema = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  message: Type.String(),
  feedback_ids: Type.Array(Type.String({ format: 'uuid' })),
});

export const validateCreateFeedback: BodyValidator<CreateFeedbackInput> = makeValidator(CreateFeedbackSchema, () => {});
export const validateUpdateFeedback: BodyValidator<UpdateFeedbackInput> = makeValidator(UpdateFeedbackSchema, () => {});
