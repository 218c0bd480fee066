/**
 * The components of the Prompts group and of prompt execution: request bodies (the validating TypeBox constants
 * themselves) and answers, as domain/prompts/views.ts builds them. components.ts spreads them into the document.
 */
import { Type } from '@sinclair/typebox';
import {
  CreatePromptSchema,
  LabelPromptVersionSchema,
  MakeDefaultPromptVersionSchema,
  RunPromptSchema,
  UpdatePromptSchema,
} from '../../admin/prompts/schemas.ts';
import { NullableString, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';

const JsonObject = Type.Record(Type.String(), Type.Unknown());
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')]);

const PromptSummarySchema = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  collection_id: Uuid,
  workspace_id: Uuid,
  model: NullableString,
  status: Status,
  created_at: Timestamp,
  last_updated_at: Timestamp,
  object: Type.Literal('prompt'),
});

const PromptSchema = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  collection_id: Uuid,
  workspace_id: Uuid,
  string: Type.String({ description: 'the template: a JSON array of chat messages, or plain text' }),
  parameters: JsonObject,
  prompt_version: Type.Integer({ minimum: 1 }),
  prompt_version_id: Uuid,
  prompt_version_status: Status,
  prompt_version_description: NullableString,
  prompt_version_label_id: NullableUuid,
  default_version: Type.Integer({ minimum: 1, description: 'the version served when a request names none' }),
  virtual_key: NullableString,
  model: NullableString,
  functions: Type.Array(Type.Unknown()),
  tools: Type.Array(Type.Unknown()),
  tool_choice: Type.Unknown(),
  template_metadata: JsonObject,
  is_raw_template: Type.Boolean(),
  status: Status,
  created_at: Timestamp,
  last_updated_at: Timestamp,
  object: Type.Literal('prompt'),
});

const PromptVersionSummarySchema = Type.Object({
  id: Uuid,
  prompt_id: Uuid,
  prompt_template: Type.Object({ string: Type.String(), parameters: JsonObject }, { description: 'the version\'s template and parameters, model, tools, functions, tool_choice, template_metadata, is_raw_template' }),
  prompt_version: Type.Integer({ minimum: 1 }),
  prompt_description: NullableString,
  label_id: NullableUuid,
  created_at: Timestamp,
  status: Status,
  object: Type.Literal('prompt'),
});

export const PROMPT_COMPONENTS = {
  CreatePromptRequest: CreatePromptSchema,
  UpdatePromptRequest: UpdatePromptSchema,
  LabelPromptVersionRequest: LabelPromptVersionSchema,
  MakeDefaultPromptVersionRequest: MakeDefaultPromptVersionSchema,
  RunPromptRequest: RunPromptSchema,
  PromptSummary: PromptSummarySchema,
  Prompt: PromptSchema,
  PromptVersionSummary: PromptVersionSummarySchema,
  PromptCreated: Type.Object({ id: Uuid, slug: Type.String(), version_id: Uuid, object: Type.Literal('prompt') }),
  PromptUpdated: Type.Object(
    { id: Uuid, slug: Type.String(), prompt_version_id: Uuid },
    { description: '`prompt_version_id`: the new version, or the latest one when no version field changed' },
  ),
  PromptRender: Type.Object({ success: Type.Literal(true), data: Type.Object({}, { description: 'the chat completions request the prompt makes (model, messages, parameters), not sent' }) }),
} as const;
