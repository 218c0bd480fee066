/**
 * GET /openapi.json and GET /v1/openapi.json: the OpenAPI document of the whole API (src/http/openapi/), built
 * and serialised once at start-up and served as that string. No key needed at either path (see plugins/auth.ts).
 */
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi/document.ts';

export const OPENAPI_PATHS = ['/openapi.json', '/v1/openapi.json'] as const;

export function registerOpenApiRoute(app: FastifyInstance): void {
  const document = JSON.stringify(buildOpenApiDocument());
  for (const path of OPENAPI_PATHS) {
    app.get(path, (_request, reply) => {
      reply.header('content-type', 'application/json; charset=utf-8').send(document);
    });
  }
}
