/** The built-in OpenAI-compatible inference routes: validate once, then forward. */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../core/errors.ts';
import type { RouteKind } from '../../providers/contract.ts';
import { forward, type ForwardDeps } from '../forward.ts';
import { checkPathSegment } from '../input-rules.ts';
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
    // the Responses API takes a JSON object; its fields are the provider's to check (issue 15 adds the full schema)
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalidParam('body', 'The request body must be a JSON object.', 'invalid_body');
    }
    await forward(request, reply, 'responses.create', deps);
  });
  // the id becomes a segment of the provider's path: `..` or `%2e%2e` would climb out of it
  app.get('/v1/responses/:response_id', { config: { routeKind: 'responses.get' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    await forward(request, reply, 'responses.get', deps);
  });
  app.delete('/v1/responses/:response_id', { config: { routeKind: 'responses.delete' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    await forward(request, reply, 'responses.delete', deps);
  });
  app.get('/v1/responses/:response_id/input_items', { config: { routeKind: 'responses.input_items' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    parseInputItemsQuery(request.query as Record<string, unknown>);
    await forward(request, reply, 'responses.input_items', deps);
  });
}
