/**
 * Bodies of the Guardrails group (api-surface §3.14). These schemas check the shape; what a check's `id` and
 * `parameters` may be is the check registry's call (src/guardrails/registry.ts), applied by the use cases.
 */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreateGuardrailInput, UpdateGuardrailInput } from '../../../domain/guardrails/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const GUARDRAIL_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
export const MAX_CHECKS = 50;

/** GuardrailCheck: the parameters' own schema depends on the id, so it is checked when the check is bound. */
const CheckSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    is_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type GuardrailCheckBody = Static<typeof CheckSchema>;

/** The feedback a verdict records; the same ranges as POST /feedback (§3.24: value -10..10, weight 0..1). */
const FeedbackSchema = Type.Object(
  {
    value: Type.Optional(Type.Integer({ minimum: -10, maximum: 10 })),
    weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    metadata: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

const OutcomeSchema = Type.Object({ feedback: Type.Optional(FeedbackSchema) }, { additionalProperties: false });

/** GuardrailActions; every field has a default (deny and async false, feedback +5 / -5 with weight 1). */
const ActionsSchema = Type.Object(
  {
    deny: Type.Optional(Type.Boolean()),
    async: Type.Optional(Type.Boolean()),
    on_success: Type.Optional(OutcomeSchema),
    on_fail: Type.Optional(OutcomeSchema),
  },
  { additionalProperties: false },
);
export type GuardrailActionsBody = Static<typeof ActionsSchema>;

const Checks = Type.Array(CheckSchema, { minItems: 1, maxItems: MAX_CHECKS });
const Name = Type.String({ minLength: 1, maxLength: 255 });

export const CreateGuardrailSchema = Type.Object(
  {
    name: Name,
    slug: Type.Optional(Type.String({ pattern: GUARDRAIL_SLUG_PATTERN })),
    /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
    workspace_id: Type.Optional(Type.String({ pattern: GUARDRAIL_SLUG_PATTERN })),
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
    checks: Checks,
    actions: ActionsSchema,
  },
  { additionalProperties: false },
);
export type CreateGuardrailBody = Static<typeof CreateGuardrailSchema>;

export const UpdateGuardrailSchema = Type.Object(
  {
    name: Type.Optional(Name),
    checks: Type.Optional(Checks),
    actions: Type.Optional(ActionsSchema),
  },
  { additionalProperties: false },
);
export type UpdateGuardrailBody = Static<typeof UpdateGuardrailSchema>;

/** An async guardrail answers after the response has gone, so it has nothing left to deny. */
function actionRules(actions: GuardrailActionsBody | undefined): void {
  if (actions?.deny === true && actions.async === true) {
    throw invalidParam('actions.deny', 'actions.deny cannot be true when actions.async is true: an async guardrail runs without holding the request, so it cannot deny it.');
  }
}

export const validateCreateGuardrail: BodyValidator<CreateGuardrailInput> = makeValidator(CreateGuardrailSchema, (body) => actionRules(body.actions));
export const validateUpdateGuardrail: BodyValidator<UpdateGuardrailInput> = makeValidator(UpdateGuardrailSchema, (body) => actionRules(body.actions));
