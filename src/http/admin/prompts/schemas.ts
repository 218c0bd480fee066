/**
 * Bodies of the Prompts group (api-surface §3.10) and of prompt render and completions (§2.6). These schemas check
 * the shape; whether the template parses (messages or text, valid mustache) is the use cases' call.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreatePromptInput, RunPromptInput, UpdatePromptInput } from '../../../domain/prompts/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const PROMPT_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,255}$';
/** `@slug`, a bare provider slug, or a virtual key: what x-gateway-provider / x-gateway-virtual-key take */
export const PROMPT_PROVIDER_PATTERN = '^@?[a-zA-Z0-9_-]{1,255}$';
/** a template of up to 1 MB: the request body's own limit is larger */
const MAX_TEMPLATE = 1_000_000;

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Reference = Type.String({ pattern: PROMPT_SLUG_PATTERN });
const Description = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]);
const JsonObject = Type.Record(Type.String(), Type.Unknown());

const Template = Type.String({ minLength: 1, maxLength: MAX_TEMPLATE, description: 'a JSON array of chat messages, or a plain-text template (one user message); mustache either way' });

/** The fields a version holds (definition.ts): a change to any of them makes a new version. */
const versionFields = {
  string: Type.Optional(Template),
  parameters: Type.Optional(JsonObject),
  model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
  functions: Type.Optional(Type.Union([Type.Array(JsonObject, { maxItems: 128 }), Type.Null()])),
  tools: Type.Optional(Type.Union([Type.Array(JsonObject, { maxItems: 128 }), Type.Null()])),
  tool_choice: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), JsonObject, Type.Null()])),
  template_metadata: Type.Optional(Type.Union([JsonObject, Type.Null()])),
  is_raw_template: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1), Type.Boolean()])),
};

export const CreatePromptSchema = Type.Object(
  {
    name: Name,
    ...versionFields,
    string: Template,
    slug: Type.Optional(Reference),
    collection_id: Type.Optional(Reference),
    workspace_id: Type.Optional(Reference),
    virtual_key: Type.Optional(Type.Union([Type.String({ pattern: PROMPT_PROVIDER_PATTERN }), Type.Null()])),
    version_description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export type CreatePromptBody = Static<typeof CreatePromptSchema>;

export const UpdatePromptSchema = Type.Object(
  {
    patch: Type.Optional(Type.Boolean()),
    name: Type.Optional(Name),
    ...versionFields,
    prompt_metadata: Type.Optional(Type.Union([JsonObject, Type.Null()])),
    collection_id: Type.Optional(Reference),
    virtual_key: Type.Optional(Type.Union([Type.String({ pattern: PROMPT_PROVIDER_PATTERN }), Type.Null()])),
    version_description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export type UpdatePromptBody = Static<typeof UpdatePromptSchema>;

export const LabelPromptVersionSchema = Type.Object(
  { label_id: Type.Union([Type.String({ pattern: UUID_PATTERN }), Type.Null()], { description: 'the label to move onto this version; null takes its label off' }) },
  { additionalProperties: false },
);

export const MakeDefaultPromptVersionSchema = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) },
  { additionalProperties: false },
);

/**
 * Render and completions. Other top-level fields are model parameters too (the Portkey SDK sends them there):
 * they override the saved ones, and `hyperparameters` overrides them in turn.
 */
export const RunPromptSchema = Type.Object({
  variables: Type.Optional(JsonObject),
  stream: Type.Optional(Type.Boolean()),
  hyperparameters: Type.Optional(JsonObject),
});

const noRules = (): void => {};

export const validateCreatePrompt: BodyValidator<CreatePromptInput> = makeValidator(CreatePromptSchema, noRules);
export const validateUpdatePrompt: BodyValidator<UpdatePromptInput> = makeValidator(UpdatePromptSchema, noRules);
export const validateLabelPromptVersion: BodyValidator<{ label_id: string | null }> = makeValidator(LabelPromptVersionSchema, noRules);
export const validateMakeDefaultPromptVersion: BodyValidator<{ version: number }> = makeValidator(MakeDefaultPromptVersionSchema, noRules);

const validateRunBody = makeValidator(RunPromptSchema, noRules);

/** The run body with the top-level model parameters folded into `hyperparameters`. */
export const validateRunPrompt: BodyValidator<RunPromptInput> = (body) => {
  const { variables, stream, hyperparameters, ...topLevel } = validateRunBody(body);
  return {
    variables: variables ?? {},
    ...(stream !== undefined ? { stream } : {}),
    hyperparameters: { ...topLevel, ...hyperparameters },
  };
};
