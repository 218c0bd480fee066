/**
 * Bodies of the Logs and Logs Export groups (api-surface §3.21, §3.22): custom logs (one or an array of at most
 * 100), and an export's filters (the reference's GenerationsFilterSchema) and fields (LogExportsRequestedData).
 */
import { Type, type Static } from '@sinclair/typebox';
import { GatewayError, invalidParam } from '../../../core/errors.ts';
import { StringEnum } from '../../../core/schemas/common.ts';
import { MAX_CUSTOM_LOGS } from '../../../domain/logs/custom-logs.ts';
import { EXPORT_FIELDS, type CreateExportInput, type CustomLogInput, type UpdateExportInput } from '../../../domain/logs/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

const Headers = Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 16_384 }), { description: 'header name -> value' });
const JsonObject = Type.Object({}, { additionalProperties: true });
const Count = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

export const CustomLogSchema = Type.Object(
  {
    request: Type.Object({
      url: Type.String({ minLength: 1, maxLength: 8192 }),
      method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$' })),
      headers: Type.Optional(Headers),
      body: JsonObject,
    }, { additionalProperties: false }),
    response: Type.Object({
      status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
      headers: Type.Optional(Headers),
      body: JsonObject,
      response_time: Type.Optional(Count),
    }, { additionalProperties: false }),
    metadata: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.String({ maxLength: 1024 }), {
      description: '`trace_id`, `span_id`, `span_name` and any other key; every value a string',
    })),
  },
  { additionalProperties: false },
);

/** The request body of POST /logs, as documented: one custom log or an array of 1 to 100. */
export const CustomLogsSchema = Type.Union([CustomLogSchema, Type.Array(CustomLogSchema, { minItems: 1, maxItems: MAX_CUSTOM_LOGS })]);

const validateOne: BodyValidator<CustomLogInput> = makeValidator(CustomLogSchema, () => {});

/** Each log is checked on its own, so an error in an array names its index (`[3].request.url`). */
export function validateCustomLogs(body: unknown): CustomLogInput[] {
  if (!Array.isArray(body)) return [validateOne(body)];
  if (body.length === 0 || body.length > MAX_CUSTOM_LOGS) throw invalidParam('body', `The body must hold 1 to ${MAX_CUSTOM_LOGS} custom logs.`);
  return body.map((log, index) => {
    try {
      return validateOne(log);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      const param = error.param === 'body' || error.param === null ? `[${index}]` : `[${index}].${error.param}`;
      throw invalidParam(param, error.message.replace(error.param ?? '\u0000', param), error.code ?? 'invalid_value');
    }
  });
}

const DateTime = Type.String({ minLength: 10, maxLength: 64, description: 'ISO-8601 date-time' });
const Amount = Type.Number({ minimum: 0, maximum: 1e15 });
const Text = Type.String({ minLength: 1, maxLength: 4096 });
const Feedback = Type.Number({ minimum: -10, maximum: 10 });

export const ExportFiltersSchema = Type.Object(
  {
    time_of_generation_min: Type.Optional(DateTime),
    time_of_generation_max: Type.Optional(DateTime),
    total_units_min: Type.Optional(Count),
    total_units_max: Type.Optional(Count),
    cost_min: Type.Optional(Amount),
    cost_max: Type.Optional(Amount),
    ai_model: Type.Optional(Text),
    prompt_token_min: Type.Optional(Count),
    prompt_token_max: Type.Optional(Count),
    completion_token_min: Type.Optional(Count),
    completion_token_max: Type.Optional(Count),
    status_code: Type.Optional(Text),
    metadata: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Unknown())),
    ai_org_model: Type.Optional(Text),
    weighted_feedback_min: Type.Optional(Feedback),
    weighted_feedback_max: Type.Optional(Feedback),
    virtual_keys: Type.Optional(Text),
    trace_id: Type.Optional(Text),
    configs: Type.Optional(Text),
    workspace_slug: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    prompt_slug: Type.Optional(Text),
    page_size: Type.Optional(Type.Number({ minimum: 0 })),
    current_page: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false, description: 'The reference\'s GenerationsFilterSchema; cost in USD cents.' },
);

const RequestedData = Type.Array(StringEnum(EXPORT_FIELDS), { maxItems: EXPORT_FIELDS.length * 2, description: 'the fields of each exported row, in order; empty: every field but the bodies' });
const WorkspaceId = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'a workspace id or slug' });
const Description = Type.String({ maxLength: 1024 });

export const CreateLogExportSchema = Type.Object(
  { workspace_id: Type.Optional(WorkspaceId), filters: ExportFiltersSchema, requested_data: RequestedData, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateLogExportBody = Static<typeof CreateLogExportSchema>;

export const UpdateLogExportSchema = Type.Object(
  { workspace_id: Type.Optional(WorkspaceId), filters: ExportFiltersSchema, requested_data: Type.Optional(RequestedData), description: Type.Optional(Description) },
  { additionalProperties: false },
);

/** start and cancel read no fields: an absent body, or `{}`. */
export const EmptyLogExportActionSchema = Type.Object({}, { additionalProperties: false });

export const validateCreateLogExport: BodyValidator<CreateExportInput> = makeValidator(CreateLogExportSchema, () => {});
export const validateUpdateLogExport: BodyValidator<UpdateExportInput> = makeValidator(UpdateLogExportSchema, () => {});
const validateEmpty = makeValidator(EmptyLogExportActionSchema, () => {});

export function validateEmptyAction(body: unknown): void {
  if (body !== undefined && body !== null) validateEmpty(body);
}
