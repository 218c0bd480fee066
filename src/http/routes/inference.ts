/** The built-in OpenAI-compatible inference routes: validate once, then forward. */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../core/errors.ts';
import type { RoutedBody } from '../../core/inference-call.ts';
import { forward, type ForwardDeps } from '../forward.ts';
import { checkPathSegment } from '../input-rules.ts';
import {
  parseInputItemsQuery,
  validateChatCompletion,
  validateCompletion,
  validateEmbedding,
  validateRerank,
} from '../schemas/validate.ts';

type ValidatedRoute = 'chat' | 'completions' | 'embeddings' | 'rerank';
type BodyOf<R extends ValidatedRoute> = Extract<RoutedBody, { route: R }>['body'];

/** A validated POST: the typed body the validator returns is the body the pipeline carries. */
function validatedPost<R extends ValidatedRoute>(app: FastifyInstance, deps: ForwardDeps, url: string, route: R, validate: (body: unknown) => BodyOf<R>): void {
  app.post(url, { config: { routeKind: route } }, async (request, reply) => {
    // TypeScript cannot tie a generic route to its union member; the validator's type does it
    const routed = { route, body: validate(request.body) } as Extract<RoutedBody, { route: R }>;
    await forward(request, reply, routed, deps);
  });
}

export function registerInferenceRoutes(app: FastifyInstance, deps: ForwardDeps): void {
  validatedPost(app, deps, '/v1/chat/completions', 'chat', validateChatCompletion);
  validatedPost(app, deps, '/v1/completions', 'completions', validateCompletion);
  validatedPost(app, deps, '/v1/embeddings', 'embeddings', validateEmbedding);
  validatedPost(app, deps, '/v1/rerank', 'rerank', validateRerank);

  app.post('/v1/responses', { config: { routeKind: 'responses.create' } }, async (request, reply) => {
    // the Responses API takes a JSON object; its fields are the provider's to check (issue 15 adds the full schema)
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalidParam('body', 'The request body must be a JSON object.', 'invalid_body');
    }
    await forward(request, reply, { route: 'responses.create', body: body as Record<string, unknown> }, deps);
  });
  // the id becomes a segment of the provider's path: `..` or `%2e%2e` would climb out of it
  app.get('/v1/responses/:response_id', { config: { routeKind: 'responses.get' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    await forward(request, reply, { route: 'responses.get', body: undefined }, deps);
  });
  app.delete('/v1/responses/:response_id', { config: { routeKind: 'responses.delete' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    await forward(request, reply, { route: 'responses.delete', body: request.body }, deps);
  });
  app.get('/v1/responses/:response_id/input_items', { config: { routeKind: 'responses.input_items' } }, async (request, reply) => {
    checkPathSegment(request.params, 'response_id');
    parseInputItemsQuery(request.query as Record<string, unknown>);
    await forward(request, reply, { route: 'responses.input_items', body: undefined }, deps);
  });
}
