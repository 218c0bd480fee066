/**
 * The routes outside /v1 (src/http/routes/operations.ts) and the document itself. They are served from the root,
 * so each path names its own server (`/`) instead of the document's `/v1`; the document is served at both.
 */
import { ref } from './components.ts';
import { json } from './responses.ts';
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
      summary: 'Readiness: the database and the key-value store answer',
      responses: {
        '200': json('ready to serve', ref('Readiness')),
        '503': json('the database or the key-value store is unreachable (named in the body)', ref('Readiness')),
      },
    }),
    '/metrics': atRoot({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      responses: { '200': { description: 'the Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    }),
    '/openapi.json': {
      servers: [{ url: '/v1', description: 'under the API\'s base URL' }, ...ROOT],
      get: open({ operationId: 'getOpenApiDocument', summary: 'This document', responses: { '200': json('the OpenAPI 3.1 document', { type: 'object' }) } }),
    },
  };
}
