/** The built-in OpenAI-compatible inference routes: validate once, then forward. */
import type { FastifyInstance } from 'fastify';
import type { RouteKind } from '../../providers/contract.ts';
import { forward, type ForwardDeps } from '../forward.ts';
import {
  parseInputItemsQuery,
  validateChatCompletion,
  validateCompletion,
  validateEmbedding,
  validateRerank,
} from '../schemas/validate.ts';

const VALIDATED_POSTS: ReadonlyArray<[string, RouteKind, (body: unknown) => unknown]> = [
  ['/v1/chat/completions', 'chat', validateChatCompletion],
  ['/v1/completions', 'completions', validateCompletion],
  ['/v1/embeddings', 'embeddings', validateEmbedding],
  ['/v1/rerank', 'rerank', validateRerank],
];

export function registerInferenceRoutes(app: FastifyInstance, deps: ForwardDeps): void {
  for (const [url, route, validate] of VALIDATED_POSTS) {
    app.post(url, { config: { routeKind: route } }, async (request, reply) => {
      validate(request.body);
      await forward(request, reply, route, deps);
    });
  }

  app.post('/v1/responses', { config: { routeKind: 'responses.create' } }, async (request, reply) => {
    await forward(request, reply, 'responses.create', deps);
  });
  app.get('/v1/responses/:response_id', { config: { routeKind: 'responses.get' } }, async (request, reply) => {
    await forward(request, reply, 'responses.get', deps);
  });
  app.delete('/v1/responses/:response_id', { config: { routeKind: 'responses.delete' } }, async (request, reply) => {
    await forward(request, reply, 'responses.delete', deps);
  });
  app.get('/v1/responses/:response_id/input_items', { config: { routeKind: 'responses.input_items' } }, async (request, reply) => {
    parseInputItemsQuery(request.query as Record<string, unknown>);
    await forward(request, reply, 'responses.input_items', deps);
  });
}
