/**
 * The Logs and Logs Export groups (src/http/admin/logs/): list, read and insert logs; export jobs and their signed
 * download URLs. The download itself (`/downloads/log-exports/{exportId}`, outside /v1) is in operations-paths.ts.
 */
import { CACHE_STATUSES, LOGS_DEFAULT_LIMIT, LOGS_MAX_LIMIT } from '../../admin/logs/query.ts';
import { WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter, UUID_SCHEMA } from '../parameters.ts';
import type { Operation, Paths } from '../types.ts';
import { logRef, type LogSchemaName } from './logs-schemas.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation, type AdminOperationSpec } from './operation.ts';

const LOGS = 'logs';
const EXPORTS = 'logs-export';
const EXPORT_ID = pathParameter('exportId', 'the export\'s id', UUID_SCHEMA);
const VISIBILITY = 'A workspace key sees its own workspace\'s logs; an admin key every workspace of its organisation.';
const TEXT = { type: 'string', minLength: 1, maxLength: 4096 };

/** adminOperation with a request body from the logs' own components. */
function withBody(spec: AdminOperationSpec, body: LogSchemaName, required = true): Operation {
  return { ...adminOperation(spec), requestBody: { required, content: { 'application/json': { schema: logRef(body) } } } };
}

const LIST_PARAMETERS = [
  queryParameter('start_time', 'only logs from this time on (ISO-8601)', { type: 'string', format: 'date-time' }),
  queryParameter('end_time', 'only logs up to this time (ISO-8601)', { type: 'string', format: 'date-time' }),
  WORKSPACE_FILTER,
  queryParameter('api_key_id', 'only this API key\'s requests', UUID_SCHEMA),
  queryParameter('provider', 'providers, comma-separated', TEXT),
  queryParameter('model', 'models, comma-separated', TEXT),
  queryParameter('status', 'HTTP statuses, comma-separated (`200,429`)', { type: 'string', pattern: '^[1-5][0-9]{2}(,[1-5][0-9]{2})*$' }),
  queryParameter('trace_id', 'trace ids, comma-separated', TEXT),
  queryParameter('span_id', 'span ids, comma-separated', TEXT),
  queryParameter('metadata', 'a JSON object of string values; a log matches when its metadata holds every pair (`{"_user":"ada"}`)', TEXT),
  queryParameter('cost_min', 'USD cents, inclusive', { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }),
  queryParameter('cost_max', 'USD cents, inclusive', { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }),
  queryParameter('latency_min', 'response time in ms, inclusive', { type: 'integer', minimum: 0 }),
  queryParameter('latency_max', 'response time in ms, inclusive', { type: 'integer', minimum: 0 }),
  queryParameter('cache_status', `comma-separated: ${CACHE_STATUSES.join(', ')}`, TEXT),
  queryParameter('cursor', 'the `next_cursor` of the previous page', { type: 'string', minLength: 1, maxLength: 400 }),
  queryParameter('limit', 'logs per page', { type: 'integer', minimum: 1, maximum: LOGS_MAX_LIMIT, default: LOGS_DEFAULT_LIMIT }),
];

export function logPaths(): Paths {
  return {
    '/logs': {
      get: adminOperation({
        operationId: 'listLogs',
        summary: 'List request logs, newest first',
        tag: LOGS,
        scope: 'logs.list',
        description: `Cursor pages: pass \`next_cursor\` back as \`cursor\` until it is null. Items carry no bodies or headers. ${VISIBILITY}`,
        parameters: LIST_PARAMETERS,
        answer: { description: 'one page of logs', schema: logRef('LogList') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
      post: withBody({
        operationId: 'insertCustomLogs',
        summary: 'Insert custom logs',
        tag: LOGS,
        scope: 'logs.write',
        description: 'One custom log or an array of 1 to 100, stored in the caller\'s workspace (an admin key\'s: the default one) with `is_custom`. '
          + 'Bodies past the request log\'s cap are cut (`bodies_truncated`); credentials are masked and headers named in ORGANISATION_HEADERS_TO_MASK or '
          + '`x-gateway-sensitive-headers` (this call\'s, or the logged request\'s) are stored hashed. `metadata.trace_id` is the trace (generated when absent). '
          + 'The reference answers with no body; this answers `{}`.',
        answer: { description: 'stored', schema: { $ref: '#/components/schemas/EmptyObject' } },
      }, 'CustomLogsRequest'),
    },
    '/logs/{logId}': {
      get: adminOperation({
        operationId: 'getLog',
        summary: 'Get one request log with its bodies, headers, attempts and timings',
        tag: LOGS,
        scope: 'logs.view',
        description: VISIBILITY,
        parameters: [pathParameter('logId', 'the log\'s id', UUID_SCHEMA)],
        answer: { description: 'the log', schema: logRef('LogObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/logs/exports': {
      post: withBody({
        operationId: 'createLogExport',
        summary: 'Create a log export (a draft)',
        tag: EXPORTS,
        scope: 'logs.export',
        description: `\`total\` is the number of logs the filters match now. ${VISIBILITY}`,
        answer: { description: 'the draft', schema: logRef('LogExportSaved') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }, 'CreateLogExportRequest'),
      get: adminOperation({
        operationId: 'listLogExports',
        summary: 'List log exports',
        tag: EXPORTS,
        scope: 'logs.export',
        parameters: [WORKSPACE_FILTER, ...pageParameters({ defaultSize: 50, maxSize: 100 })],
        answer: { description: 'the exports the caller can see, newest first', schema: logRef('LogExportList') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/logs/exports/{exportId}': {
      get: adminOperation({
        operationId: 'getLogExport',
        summary: 'Get a log export: its status and progress',
        tag: EXPORTS,
        scope: 'logs.export',
        parameters: [EXPORT_ID],
        answer: { description: 'the export', schema: logRef('LogExport') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: withBody({
        operationId: 'updateLogExport',
        summary: 'Change a draft log export',
        tag: EXPORTS,
        scope: 'logs.export',
        parameters: [EXPORT_ID],
        answer: { description: 'the draft, with its new total', schema: logRef('LogExportSaved') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the export is no longer a draft' },
      }, 'UpdateLogExportRequest'),
    },
    '/logs/exports/{exportId}/start': {
      post: withBody({
        operationId: 'startLogExport',
        summary: 'Start a log export',
        tag: EXPORTS,
        scope: 'logs.export',
        description: 'Runs in the background: poll GET /logs/exports/{exportId} until `success` (or `failed`). A failed or stopped export starts again from scratch.',
        parameters: [EXPORT_ID],
        answer: { description: 'started', schema: logRef('LogExportMessage') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the export is running or has finished' },
      }, 'LogExportActionRequest', false),
    },
    '/logs/exports/{exportId}/cancel': {
      post: withBody({
        operationId: 'cancelLogExport',
        summary: 'Cancel a log export (status `stopped`)',
        tag: EXPORTS,
        scope: 'logs.export',
        parameters: [EXPORT_ID],
        answer: { description: 'stopped', schema: logRef('LogExportMessage') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the export has already ended' },
      }, 'LogExportActionRequest', false),
    },
    '/logs/exports/{exportId}/download': {
      get: adminOperation({
        operationId: 'getLogExportDownloadUrl',
        summary: 'A signed URL of a finished export\'s file',
        tag: EXPORTS,
        scope: 'logs.export',
        description: 'The URL (GET /downloads/log-exports/{exportId}) needs no key and expires after 15 minutes.',
        parameters: [EXPORT_ID, queryParameter('format', 'the file\'s format', { type: 'string', enum: ['jsonl', 'csv'], default: 'jsonl' })],
        answer: { description: 'the signed URL', schema: logRef('LogExportSignedUrl') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the export has not finished' },
      }),
    },
  };
}
