/** The analytics group (src/http/admin/analytics/routes.ts): 23 GET routes with the common filters of api-surface §3.20. */
import { ANALYTICS_GRAPHS } from '../../admin/analytics/routes.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { JsonSchema, Parameter, Paths } from '../types.ts';
import { analyticsRef } from './analytics-schemas.ts';
import { adminOperation } from './operation.ts';

const TAG = 'analytics';
const LIST: JsonSchema = { type: 'string', minLength: 1, maxLength: 16384 };
const INTEGER: JsonSchema = { type: 'integer', minimum: 0 };
const COST: JsonSchema = { type: 'number', minimum: 0 };
const FEEDBACK: JsonSchema = { type: 'number', minimum: -10, maximum: 10 };
const TIME: JsonSchema = { type: 'string', format: 'date-time' };

const FILTERS: Parameter[] = [
  queryParameter('workspace_slug', 'organisation keys: the workspace (slug or id), default the default workspace; ignored for workspace keys', { type: 'string', minLength: 1, maxLength: 64 }),
  queryParameter('time_of_generation_min', 'from (ISO-8601); default 7 days before the max', TIME),
  queryParameter('time_of_generation_max', 'up to, inclusive (ISO-8601); default now. The range spans 5 years at most', TIME),
  queryParameter('total_units_min', 'total tokens at least', INTEGER),
  queryParameter('total_units_max', 'total tokens at most', INTEGER),
  queryParameter('cost_min', 'cost at least, in cents', COST),
  queryParameter('cost_max', 'cost at most, in cents', COST),
  queryParameter('prompt_token_min', 'prompt tokens at least', INTEGER),
  queryParameter('prompt_token_max', 'prompt tokens at most', INTEGER),
  queryParameter('completion_token_min', 'completion tokens at least', INTEGER),
  queryParameter('completion_token_max', 'completion tokens at most', INTEGER),
  queryParameter('status_code', 'comma-separated HTTP statuses', LIST),
  queryParameter('weighted_feedback_min', 'a feedback on the trace weighs at least (value x weight)', FEEDBACK),
  queryParameter('weighted_feedback_max', 'a feedback on the trace weighs at most (value x weight)', FEEDBACK),
  queryParameter('virtual_keys', 'comma-separated virtual key (provider) slugs', LIST),
  queryParameter('configs', 'comma-separated config slugs', LIST),
  queryParameter('api_key_ids', 'comma-separated API key ids', LIST),
  queryParameter('metadata', 'a JSON object of key/value pairs the request metadata must hold', { type: 'string', minLength: 2, maxLength: 8192 }),
  queryParameter('ai_org_model', 'comma-separated `provider__model` pairs', LIST),
  queryParameter('trace_id', 'comma-separated trace ids', LIST),
  queryParameter('span_id', 'comma-separated span ids', LIST),
  queryParameter('prompt_slug', 'comma-separated prompt slugs', LIST),
];

const SCOPE = 'analytics.view';
const DESCRIPTION = 'Time buckets: an hour up to a 2-day range, a day up to 60 days, a week beyond; empty buckets included. Costs in cents.';

function operationId(path: string): string {
  return `analytics${path.split(/[/-]/).map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}`;
}

export function analyticsPaths(): Paths {
  const paths: Paths = {};
  for (const [path] of ANALYTICS_GRAPHS) {
    const summary = path === 'summary/cache';
    paths[`/analytics/${path}`] = {
      get: adminOperation({
        operationId: operationId(path),
        summary: summary ? 'Cache summary' : `Graph: ${path.slice('graphs/'.length)}`,
        tag: TAG,
        scope: SCOPE,
        description: DESCRIPTION,
        parameters: FILTERS,
        answer: { description: summary ? 'the cache summary' : 'the graph', schema: analyticsRef(summary ? 'AnalyticsSummary' : 'AnalyticsGraph') },
        errors: { 404: 'workspace_slug names no workspace of the organisation' },
      }),
    };
  }
  const group = (name: string, schema: 'AnalyticsUsersGroup' | 'AnalyticsModelsGroup' | 'AnalyticsProvidersGroup' | 'AnalyticsApiKeysGroup' | 'AnalyticsMetadataGroup', extra: Parameter[] = []) => ({
    get: adminOperation({
      operationId: operationId(`groups/${name}`),
      summary: `Group by ${name}`,
      tag: TAG,
      scope: SCOPE,
      description: 'Most requests first, paged; `total` counts the groups in all pages (a page past the last one included).',
      parameters: [...extra, ...FILTERS, ...pageParameters({ defaultSize: 50, maxSize: 1000 })],
      answer: { description: 'the groups', schema: analyticsRef(schema) },
      errors: { 404: 'workspace_slug names no workspace of the organisation' },
    }),
  });
  paths['/analytics/groups/users'] = group('users', 'AnalyticsUsersGroup');
  paths['/analytics/groups/ai-models'] = group('ai-models', 'AnalyticsModelsGroup');
  paths['/analytics/groups/providers'] = group('providers', 'AnalyticsProvidersGroup');
  paths['/analytics/groups/api-keys'] = group('api-keys', 'AnalyticsApiKeysGroup');
  paths['/analytics/groups/metadata/{metadataKey}'] = group('metadata', 'AnalyticsMetadataGroup', [
    pathParameter('metadataKey', 'the metadata key whose values are the groups', { type: 'string', minLength: 1, maxLength: 255 }),
  ]);
  return paths;
}
