/**
 * The routes outside /v1 (src/http/routes/operations.ts) and the document itself. They are served from the root,
 * so each path names its own server (`/`) instead of the document's `/v1`; the document is served at both.
 */
import { ref } from './components.ts';
import { BAD_INPUT, errors, json } from './responses.ts';
import type { Operation, PathItem, Paths, Server } from './types.ts';

const ROOT: Server[] = [{ url: '/', description: 'the gateway root, outside /v1' }];
const TAG = 'operations';

function open(operation: Omit<Operation, 'security' | 'tags'>): Operation {
  return { ...operation, tags: [TAG], security: [] };
}

function atRoot(operation: Omit<Operation, 'security' | 'tags'>): PathItem {
  return { servers: ROOT, get: open(operation) };
}

export function operationsPaths(): Paths {
  return {
    '/health': atRoot({ operationId: 'getHealth', summary: 'Liveness', responses: { '200': json('the process is up', ref('Health')) } }),
    '/ready': atRoot({
      operationId: 'getReadiness',
      summary: 'Readiness: 503 only while the node drains (a shutdown); a service away is `degraded`, still 200',
      responses: {
        '200': json('serving: `ready`, or `degraded` with the service that is away named', ref('Readiness')),
        '503': json('draining: shutting down, take the node out of the balancer', ref('Readiness')),
      },
    }),
    '/metrics': atRoot({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      responses: { '200': { description: 'the Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    }),
    '/downloads/log-exports/{exportId}': {
      servers: ROOT,
      get: {
        operationId: 'downloadLogExport',
        summary: 'A finished log export\'s file, from its signed URL',
        description: 'No key: the URL from GET /v1/logs/exports/{exportId}/download is the credential, for 15 minutes. JSON Lines as stored, or CSV (one column per requested field).',
        tags: ['logs-export'],
        security: [],
        parameters: [
          { name: 'exportId', in: 'path', required: true, description: 'the export\'s id', schema: { type: 'string', format: 'uuid' } },
          { name: 'format', in: 'query', description: 'the format the URL was signed for', schema: { type: 'string', enum: ['jsonl', 'csv'], default: 'jsonl' } },
          { name: 'expires', in: 'query', required: true, description: 'Unix time (seconds) the URL expires at', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
          { name: 'signature', in: 'query', required: true, description: 'the URL\'s signature', schema: { type: 'string', minLength: 1, maxLength: 1024 } },
        ],
        responses: {
          '200': { description: 'the file, streamed', content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } } },
          ...errors({ 400: BAD_INPUT, 403: 'the signature is not valid, or the URL has expired', 404: 'the export is gone or has not finished' }),
        },
      },
    },
    '/openapi.json': {
      servers: [{ url: '/v1', description: 'under the API\'s base URL' }, ...ROOT],
      get: open({ operationId: 'getOpenApiDocument', summary: 'This document', responses: { '200': json('the OpenAPI 3.1 document', { type: 'object' }) } }),
    },
  };
}
