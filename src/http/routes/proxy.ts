/**
 * Pass-through: any other /v1 path goes to the selected provider with its method, body and query as given, and
 * comes back exactly as received. /v1/proxy/... does the same even for a built-in route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forward, inferenceCall, type ForwardDeps } from '../forward.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function pathAfter(request: FastifyRequest, prefix: string): string {
  const url = request.raw.url ?? '';
  const end = url.indexOf('?');
  return url.slice(prefix.length, end >= 0 ? end : undefined);
}

export function registerProxyRoutes(app: FastifyInstance, deps: ForwardDeps): void {
  const handle = (prefix: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    await forward(request, reply, inferenceCall(request, 'passthrough', pathAfter(request, prefix)), deps);
  };
  app.route({ method: [...METHODS], url: '/v1/proxy/*', handler: handle('/v1/proxy') });
  app.route({ method: [...METHODS], url: '/v1/*', handler: handle('/v1') });
}
