/** Answers of the analytics and feedback groups, as components (registered in document.ts). */
import { Type } from '@sinclair/typebox';
import { CreateFeedbackSchema, FeedbackAnswerSchema, UpdateFeedbackSchema } from '../../admin/feedback/schemas.ts';
import { asComponent } from '../components.ts';
import type { JsonSchema } from '../types.ts';

const Num = Type.Number();

export const AnalyticsGraphSchema = Type.Object({
  object: Type.Literal('analytics-graph'),
  summary: Type.Record(Type.String(), Type.Unknown(), { description: 'the whole range: the fields the route names' }),
  data_points: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'one per time bucket (an ISO `timestamp`), empty buckets included; or one per status code, score or model' }),
});

export const AnalyticsSummarySchema = Type.Object({
  object: Type.Literal('analytics-summary'),
  summary: Type.Object({ hits: Num, avg_latency: Num, total_requests: Num, cache_speedup: Num }),
});

const Group = (fields: Parameters<typeof Type.Object>[0]) => Type.Object({
  object: Type.Literal('list'),
  total: Type.Integer({ description: 'groups in all pages' }),
  data: Type.Array(Type.Object({ object: Type.Literal('analytics-group'), ...fields })),
});

export const AnalyticsUsersGroupSchema = Group({ user: Type.String(), requests: Type.String(), cost: Type.String({ description: 'cents' }) });
export const AnalyticsModelsGroupSchema = Group({ ai_model: Type.Union([Type.String(), Type.Null()]), requests: Type.String() });
export const AnalyticsProvidersGroupSchema = Group({
  provider: Type.Union([Type.String({ description: 'the provider\'s name, as the request log records it' }), Type.Null()]),
  requests: Type.String(),
  cost: Type.String({ description: 'cents' }),
});
export const AnalyticsApiKeysGroupSchema = Group({
  api_key_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  api_key_name: Type.Union([Type.String({ description: 'null once the key is deleted' }), Type.Null()]),
  requests: Type.String(),
  cost: Type.String({ description: 'cents' }),
});
export const AnalyticsMetadataGroupSchema = Group({
  metadata_value: Type.String(),
  requests: Type.String(),
  cost: Type.String({ description: 'cents' }),
  avg_tokens: Num,
  avg_weighted_feedback: Type.Union([Num, Type.Null()]),
  requests_with_feedback: Num,
  last_seen: Type.String({ format: 'date-time' }),
});

const SCHEMAS = {
  AnalyticsGraph: AnalyticsGraphSchema,
  AnalyticsSummary: AnalyticsSummarySchema,
  AnalyticsUsersGroup: AnalyticsUsersGroupSchema,
  AnalyticsModelsGroup: AnalyticsModelsGroupSchema,
  AnalyticsProvidersGroup: AnalyticsProvidersGroupSchema,
  AnalyticsApiKeysGroup: AnalyticsApiKeysGroupSchema,
  AnalyticsMetadataGroup: AnalyticsMetadataGroupSchema,
  CreateFeedbackRequest: CreateFeedbackSchema,
  UpdateFeedbackRequest: UpdateFeedbackSchema,
  FeedbackAnswer: FeedbackAnswerSchema,
} as const;

export type AnalyticsSchemaName = keyof typeof SCHEMAS;

export function analyticsRef(name: AnalyticsSchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Spread into components.schemas by document.ts. */
export function analyticsComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, asComponent(name, schema)]));
}
