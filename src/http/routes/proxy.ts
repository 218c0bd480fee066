/**
 * Pass-through: any other /v1 path goes to the selected provider with its method, body and query as given, and
 * comes back exactly as received. /v1/proxy/... does the same even for a built-in route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, invalidParam } from '../../core/errors.ts';
import { clientPathProblem, describeProblem } from '../../pipeline/path-rules.ts';
import { forward, type ForwardDeps } from '../forward.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function pathAfter(request: FastifyRequest, prefix: string): string {
  const url = request.raw.url ?? '';
  // The router matched the decoded path; slicing a raw URL whose prefix is percent-encoded (/%761/...) would
  // cut at the wrong place and glue the rest onto the provider's host or port.
  if (!url.startsWith(`${prefix}/`)) {
    throw badRequest(`The path must start with ${prefix}/ as plain characters, not percent-encoded.`, 'invalid_path');
  }
  const end = url.indexOf('?');
  const path = url.slice(prefix.length, end >= 0 ? end : undefined);
  // refused before anything else: once joined to the provider's base URL, a dot segment would climb out of it
  const problem = clientPathProblem(path);
  if (problem) throw invalidParam('path', `The path must not contain ${describeProblem(problem)}.`, 'invalid_path');
  return path;
}

export function registerProxyRoutes(app: FastifyInstance, deps: ForwardDeps): void {
  const handle = (prefix: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    await forward(request, reply, { route: 'passthrough', body: request.body }, deps, pathAfter(request, prefix));
  };
  const config = { routeKind: 'passthrough' as const };
  app.route({ method: [...METHODS], url: '/v1/proxy/*', config, handler: handle('/v1/proxy') });
  app.route({ method: [...METHODS], url: '/v1/*', config, handler: handle('/v1') });
}
